// A stand-in engine worker for test/optimization/engine-worker.test.ts that fails as it loads.
throw new Error("broken on purpose");
