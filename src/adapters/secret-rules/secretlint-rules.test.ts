import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../core/security/redact-secrets.js';
import { secretlintRules, secretlintVersion } from './secretlint-rules.js';

// Shapes only the maintained rule set knows (the core's own shapes miss them): each proves the rules are asked.
const onlyInRuleSet: Array<[string, string]> = [
  ['SendGrid', 'SG.' + 'ngeVfQFYQlKU0ufo8x5d1A' + '.' + 'TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc01s5cr'],
  ['Shopify', 'shpat_' + 'fcee9efa6a2f4a6c8a12c3e4b5d6f7a8'],
  ['Slack webhook', 'https://hooks.slack.com/services/' + 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'],
  ['Linear', 'lin_api_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcd'],
];

describe('secretlint rules (the real preset)', () => {
  it('loads the recommended preset\'s scanners once', () => {
    const rules = secretlintRules();
    expect(rules.length).toBeGreaterThanOrEqual(10);
    expect(rules.map((rule) => rule.id)).toContain('@secretlint/secretlint-rule-npm');
    expect(secretlintRules()).toBe(rules);
    expect(secretlintVersion()).toMatch(/^11\./);
  });

  it.each(onlyInRuleSet)('redacts a %s secret that only the rule set knows', (_name, secret) => {
    const withRules = createRedactor([], { rules: secretlintRules() });
    const without = createRedactor([]);
    const text = `printed: ${secret} done`;
    expect(without(text)).toContain(secret);
    const redacted = withRules(text);
    expect(redacted).not.toContain(secret);
    expect(redacted).toContain(REDACTED);
    expect(redacted.startsWith('printed: ')).toBe(true);
  });

  // One positive sample per gated rule (RULE_GATES): a gate that a new preset outgrows fails here.
  it.each([
    ['@secretlint/secretlint-rule-aws', 'aws_secret_access_key = "' + 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYZZZZZZZKEY' + '"'],
    ['@secretlint/secretlint-rule-basicauth', 'curl https://admin:' + 'Sup3rSecretPw' + '@api.example.com/v1'],
    ['@secretlint/secretlint-rule-database-connection-string', 'DATABASE=postgres://app:' + 'pgSecretPw99' + '@db.internal:5432/app'],
  ])('the gated rule %s still reports its sample', (id, text) => {
    const rule = secretlintRules().find((candidate) => candidate.id === id)!;
    expect([...rule.find(text)].length).toBeGreaterThan(0);
  });

  it('redacts the whole secret when a rule reports a shifted range (named values are searched too)', () => {
    const key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'.replace('EXAMPLE', 'ZZZZZZZ');
    const redacted = createRedactor([], { rules: secretlintRules() })(`export AWS_SECRET_ACCESS_KEY="${key}"\n`);
    expect(redacted).not.toContain(key.slice(10));
  });

  it.each([
    ['| 2025-01-01 | daily-triage | no-op | tokens: 4200 | maxTokens=120000 |'],
    ['    const token = input.slice(start, index).trim()'],
    ['git push origin loop/daily-triage/fix-1 && gh pr create --title "Fix the parser"'],
    ['https://github.com/owner/repo/pull/12 merged'],
  ])('leaves ordinary text alone with the rule set on: %j', (text) => {
    expect(createRedactor([], { rules: secretlintRules() })(text)).toBe(text);
  });
});
