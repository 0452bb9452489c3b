export * from './urlRules';
export * from './endpoints';
export * from './deliveries';
export * from './fanOut';
export * from './attempts';
export * from './testEvent';
