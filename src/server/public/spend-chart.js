/* The Cost panel's chart (uPlot): tokens per UTC day per loop, each loop's daily cap as a dashed line, dollars in the
   legend where the spend journal knows the price, and a y axis as wide as its labels. */
(function () {
  'use strict';
  const { tokens } = window.LoopConsoleRender;
  const dollars = (usd, complete) => (usd === null || usd === undefined ? null : `$${usd.toFixed(2)}${complete === false ? '+' : ''}`);
  /** One day of one loop, as the chart's legend shows it: tokens, and dollars when the spend journal knows the price. */
  function daySpend(loop, index) {
    const usd = dollars(loop.costUsdPerDay ? loop.costUsdPerDay[index] : null, loop.costCompletePerDay ? loop.costCompletePerDay[index] : true);
    return `${tokens(loop.perDay[index])} tokens${usd ? ` · ${usd}` : ''}`;
  }
  /** Axis ticks short enough to read: 1.5M, 250k. */
  function compact(value) {
    const abs = Math.abs(value);
    if (abs >= 1e6) return `${+(value / 1e6).toFixed(abs >= 1e7 ? 0 : 1)}M`;
    if (abs >= 1e3) return `${+(value / 1e3).toFixed(abs >= 1e4 ? 0 : 1)}k`;
    return String(value);
  }
  /** The y axis as wide as its longest label (uPlot's fixed default clips "1,000,000"); measured with the axis's own font. */
  function axisWidth(self, values, axisIndex, cycle) {
    const axis = self.axes[axisIndex];
    if (cycle > 1) return axis._size;
    const longest = (values || []).reduce((widest, value) => (String(value).length > widest.length ? String(value) : widest), '');
    self.ctx.font = axis.font[0];
    return Math.ceil(axis.ticks.size + axis.gap + self.ctx.measureText(longest).width / devicePixelRatio + 8);
  }


  /** uPlot options and data for `rows` (the spend report's loops, oldest day first). */
  function spendChart(rows, days, width, labelOf) {
    const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
    const palette = ['#2456c9', '#b54708', '#067647', '#b42318', '#6941c6', '#0e7090'];
    const last = days.length - 1;
    // Legend values: the hovered day, or today when the cursor is elsewhere (uPlot's "--" says nothing).
    const spendSeries = rows.map((loop, index) => ({ label: labelOf(loop), stroke: palette[index % palette.length], width: 2, value: (self, value, series, dayIndex) => (dayIndex === null || dayIndex === undefined ? `today ${daySpend(loop, last)}` : daySpend(loop, dayIndex)) }));
    // Each loop's daily cap as a dashed line in its colour, named in the legend.
    const capSeries = rows.map((loop, index) => ({ label: `${labelOf(loop)} daily cap`, stroke: palette[index % palette.length], width: 1, dash: [6, 4], points: { show: false }, value: () => `${tokens(loop.dailyTokenCap)} tokens` }));
    const opts = {
      width,
      height: 220,
      series: [{ label: 'Day', value: (self, value, series, dayIndex) => (dayIndex === null || dayIndex === undefined ? `${days[last] || ''} (today)` : days[dayIndex]) }, ...spendSeries, ...capSeries],
      axes: [{}, { label: 'tokens', labelSize: 18, size: axisWidth, values: (self, ticks) => ticks.map(compact) }],
      scales: { x: { time: true }, y: { range: (self, min, max) => [0, Math.max(1, max) * 1.1] } },
    };
    const series = [xs, ...rows.map((loop) => loop.perDay), ...rows.map((loop) => days.map(() => loop.dailyTokenCap))];
    return { opts, series };
  }
  window.LoopSpendChart = { dollars, spendChart };
})();
