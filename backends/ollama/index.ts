export { createOllamaBackend, type OllamaBackendSettings } from './create-ollama-backend.js';
export { OllamaStreamAccumulator, toOllamaMessages, toOllamaTools, type OllamaChunk, type OllamaMessage } from './ollama-mapper.js';
export { normalizeOllamaHost } from './ollama-model.js';
