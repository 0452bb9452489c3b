export {
  REDACTED,
  SENSITIVE_HEADERS,
  redactError,
  redactHeaders,
  redactSecrets,
  redactText,
  secretPatterns,
  secretRedactor,
} from './redact';
