export { hmacSha256Hex, sha256Hex, safeEqual } from './hmac';
export { randomToken } from './tokens';
export { createSecretBox } from './secretBox';
export type { SecretBox } from './secretBox';
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_SECRET_PREFIX,
  parseWebhookSignature,
  signWebhook,
  verifyWebhook,
} from './webhookSignature';
export type { ParsedSignature, SignWebhookArgs, VerifyWebhookArgs, WebhookVerifyFailure } from './webhookSignature';
export { newWebhookSecret, signStandardWebhook, standardWebhookKey } from './standardWebhooks';
export type { SignStandardWebhookArgs } from './standardWebhooks';
export { createReviewLinkSigner } from './reviewLinks';
export type { ReviewLinkClaims, ReviewLinkSigner } from './reviewLinks';
