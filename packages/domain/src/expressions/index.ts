export {
  DEFAULT_EXPRESSION_LIMITS,
  MAX_EXPRESSION_LENGTH,
  ExpressionError,
  checkExpressionSyntax,
  clearExpressionCache,
  compileExpression,
  evaluateExpression,
  expressionCacheSize,
  toExpressionError,
  type ExpressionLimits,
} from './evaluate';
export { expressionErrorCode } from './expressionError';
export { stepOutputReference } from './stepReference';
export { secretsReadBy, secretsUsedBy, type SecretNames } from './secretReferences';
export { SANDBOX_LIMITS, SandboxBusyError, closeSandbox, configureSandbox, sandboxStats } from './sandbox/pool';
export {
  TemplateSyntaxError,
  compileTemplates,
  findTemplateExpressions,
  hasTemplates,
  parseTemplate,
  renderTemplateString,
  renderTemplateText,
  renderTemplates,
  templateValueToString,
  type PathSegment,
  type TemplateExpression,
  type TemplatePart,
  type TemplateProblem,
} from './templates';
export { encodeUrlValue, renderHttpRequest, renderUrlTemplate } from './urlTemplate';
