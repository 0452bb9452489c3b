export * from './members';
export * from './sessions';
export { SIGN_IN_WINDOW_MS, MAX_FAILURES_PER_EMAIL, MAX_FAILURES_PER_ADDRESS } from './throttle';
export { hashPassword, verifyPassword } from './password';
