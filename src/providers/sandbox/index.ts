// The sandbox provider behind `gw_test_` keys: simulated answers, no network, and the on-demand
// failures of docs/api.md "Test mode" raised as real upstream failures so fallback and errors run.
import type { ChatCompletion, ChunkEvent } from "../../canonical/completion.ts";
import type { Provider, ProviderCall } from "../types.ts";
import { chunksOf } from "../completion-chunks.ts";
import { UpstreamFailure } from "../../canonical/failure.ts";
import { simulateCompletion } from "./answer.ts";
import { simulateEmbeddings } from "./embeddings.ts";
import { isTestModel, testScenarioOf, type TestScenario } from "./scenarios.ts";

export const SANDBOX_PROVIDER = "sandbox";

function failureFor(scenario: TestScenario | undefined, attempt: number): UpstreamFailure | null {
  if (scenario?.kind === "upstream") {
    const retryAfter = scenario.failureClass === "rate_limit" ? 1 : undefined;
    return new UpstreamFailure({ failureClass: scenario.failureClass, message: `Simulated ${scenario.code} (test mode).`, retryAfter, publicCode: scenario.code });
  }
  if (scenario?.kind === "fallback" && attempt === 0) {
    return new UpstreamFailure({ failureClass: "transient", message: "Simulated provider outage on the first choice (test mode).", upstreamStatus: 503 });
  }
  return null;
}

/** A schema the simulator cannot satisfy is the caller's fault, as a real provider's 400 would be. */
function simulate(call: ProviderCall): ChatCompletion {
  try {
    return simulateCompletion(call);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith("schema-sample:")) throw err;
    const why = err.message.slice("schema-sample:".length).trim();
    throw UpstreamFailure.fromStatus(400, "caller", "The request's JSON schema cannot be satisfied (test mode).", { publicCode: "invalid_request", detail: why });
  }
}

const scenarioOf = (call: ProviderCall): TestScenario | undefined =>
  isTestModel(call.request.model) ? testScenarioOf(call.request.model) : undefined;

export function sandboxProvider(): Provider {
  return {
    id: SANDBOX_PROVIDER,
    async complete(call) {
      const failure = failureFor(scenarioOf(call), call.attempt);
      if (failure) throw failure;
      return simulate(call);
    },
    async stream(call) {
      const scenario = scenarioOf(call);
      const failure = failureFor(scenario, call.attempt);
      if (failure) throw failure;
      const completion = simulate(call);
      return (async function* (): AsyncGenerator<ChunkEvent> {
        let sent = 0;
        for (const chunk of chunksOf(completion)) {
          if (call.signal.aborted) return;
          // stream_error: a few deltas reach the client, then the stream fails (docs/api.md "Errors").
          if (scenario?.kind === "stream_error" && sent === 3) {
            throw UpstreamFailure.badBody("Simulated failure after the stream started (test mode).", null);
          }
          yield { type: "chunk", chunk };
          sent++;
        }
      })();
    },
    async embed(call) {
      const model = call.requestedModel;
      const failure = failureFor(model && isTestModel(model) ? testScenarioOf(model) : undefined, call.attempt ?? 0);
      if (failure) throw failure;
      return simulateEmbeddings(call);
    },
  };
}
