// The shapes of gw's bodies (docs/api.md). Fields keep the wire's snake_case; gw may add fields
// over time, so answers are open to more than what is listed here.
export {};
