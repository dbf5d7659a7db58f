export { createOpenAIBackend, type OpenAIBackendSettings } from './create-openai-backend.js';
export { ChatStreamAccumulator, toChatMessages, toChatTools } from './chat-mapper.js';
export { fromResponse, toResponsesInput, toResponsesTools } from './responses-mapper.js';
