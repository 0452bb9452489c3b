export { hmacSha256Hex, sha256Hex, safeEqual } from './hmac';
export { randomToken } from './tokens';
export { createSecretBox } from './secretBox';
export type { SecretBox } from './secretBox';
