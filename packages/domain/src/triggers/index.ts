export {
  SIGNATURE_PREFIX,
  TRIGGER_BODY_LIMIT,
  TRIGGER_SECRET_HEADER,
  TRIGGER_SIGNATURE_HEADER,
  canonicalIp,
  computeTriggerSignature,
  declaredLengthExceeds,
  ipAllowed,
  missingRequiredHeader,
  parseTriggerBody,
  resolveClientIp,
  secretMatches,
  signatureMatches,
  verifyBeforeBody,
  verifyTriggerRequest,
  type HeaderBag,
  type TriggerCredentials,
  type TriggerRequest,
} from './checks';
export { rotateTriggerSecrets, triggerSecretsInForce } from './secrets';
export { fireTrigger, loadTrigger, type FireTriggerArgs, type FireTriggerResult, type LoadedTrigger } from './triggers';
