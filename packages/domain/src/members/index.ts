export * from './members';
export * from './sessions';
export * from './manage';
export {
  SIGN_IN_WINDOW_MS,
  MAX_FAILURES_PER_EMAIL,
  MAX_FAILURES_PER_ADDRESS,
  LINK_REQUEST_WINDOW_MS,
  MAX_LINK_REQUESTS_PER_EMAIL,
} from './throttle';
export { hashPassword, verifyPassword } from './password';
