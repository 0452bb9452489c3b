export type {
  ConditionStep,
  DelayStep,
  ExpressionContext,
  HttpStep,
  RetryPolicy,
  ReviewStep,
  StepDefinition,
  StepType,
  TransformStep,
  TriggerSettings,
  WorkflowDefinition,
} from './types';
export {
  DurationError,
  MAX_DURATION_MS,
  formatDuration,
  parseDuration,
  tryParseDuration,
  type DurationUnit,
  type ParseDurationOptions,
} from '@svc/config';
export {
  INPUT_ERROR_MESSAGE,
  InputSchemaError,
  ajvErrorsToFieldErrors,
  compileInputValidator,
  validateRunInput,
  compileJsonSchema,
  type InputValidator,
} from './inputSchema';
export {
  DEFINITION_INVALID,
  MAX_DEFINITION_DEPTH,
  MAX_DEFINITION_SIZE,
  detectDefinitionFormat,
  parseDefinition,
  validateDefinition,
  type DefinitionFormat,
} from './parse';
export {
  DEFAULT_RETRY,
  DEFAULT_TRIGGER,
  HTTP_METHODS,
  HTTP_TIMEOUT_MAX_MS,
  MAX_STEPS,
  SLUG_PATTERN,
  STEP_KEY_PATTERN,
  STEP_TYPES,
  definitionSchema,
  type DefinitionDocument,
} from './schema';
export { formatFieldPath } from './paths';
export { DEFINITION_SCHEMA_PATH, definitionJsonSchema } from './jsonSchema';
export { locateProblems, type LocatedProblem } from './locate';
