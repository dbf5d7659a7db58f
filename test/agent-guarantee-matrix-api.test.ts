/** The agent guarantees that apply to the in-process API backends (openai, ollama): an outage and a refusal cost 0. */
import { describeApiGuarantees } from './agent-guarantee-matrix.js';

describeApiGuarantees();
