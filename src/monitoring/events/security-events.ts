// Security events raised on the request path (docs/webhooks.md "Event types"): blocked addresses and
// guard findings are counted in memory per project and 5-minute window, and sent when the window
// ends (flush); failed authentications send one spike event when a window's count reaches the threshold.
import type { GuardReport } from "../../guard/content-guard.ts";
import { CATEGORY, type Kind } from "../../guard/kinds.ts";
import type { Clock } from "../../lib/clock.ts";
import type { EmitEvent } from "../webhooks/emitter.ts";
import type { SharedSecurityWindows } from "./security-shared.ts";
import { iso, WINDOW_MS, windowStart } from "./thresholds.ts";

type WindowedType = "security.ip_blocked" | "security.pii_blocked" | "security.secret_detected";

/** Request ids one event lists; `count` still counts every request. */
export const MAX_REQUEST_IDS = 100;
/** Failed authentications of one project in one window that make a spike. */
export const AUTH_FAILURE_THRESHOLD = 20;

interface Tally {
  type: WindowedType;
  projectId: string;
  start: number;
  count: number;
  requestIds: string[];
  kinds: Set<Kind>;
  keyIds: Set<string>;
}

interface Failures {
  start: number;
  count: number;
  keyIds: Set<string>;
}

export class SecurityEvents {
  private readonly open = new Map<string, Tally>();
  private ended: Tally[] = [];
  private readonly failures = new Map<string, Failures>();
  private unattributed: Failures = { start: 0, count: 0, keyIds: new Set() };

  constructor(
    private readonly emit: EmitEvent,
    private readonly clock: Clock,
    /** Failed keys that name no project (unknown keys) passing the threshold: logged, not sent. */
    private readonly onUnattributedSpike: (failures: number, windowStartIso: string) => void = () => {},
    private readonly threshold = AUTH_FAILURE_THRESHOLD,
    /** Multi-instance: windows and failures are summed across instances on Redis. */
    private readonly shared?: SharedSecurityWindows,
  ) {}

  /** The guard's report on a request: blocked personal data, and any secret found (redacted or blocked). */
  guarded(projectId: string, requestId: string, report: GuardReport): void {
    const kinds = Object.keys(report.found) as Kind[];
    const pii = kinds.filter((k) => CATEGORY[k] === "pii");
    const secrets = kinds.filter((k) => CATEGORY[k] === "secrets");
    // Blocked for its personal data: not a request the secrets policy alone refused.
    const piiBlocked = report.action === "blocked" && (report.pii === "block" || report.tooMany === true);
    if (piiBlocked && pii.length > 0) this.count("security.pii_blocked", projectId, requestId, pii, null);
    if (secrets.length > 0) this.count("security.secret_detected", projectId, requestId, secrets, null);
  }

  /** A request refused by the project's or the key's IP allowlist. */
  ipBlocked(projectId: string, requestId: string, keyId: string): void {
    this.count("security.ip_blocked", projectId, requestId, [], keyId);
  }

  /** A failed authentication: `key` is the revoked key presented (its project is known), null for
   * a key gw does not know (keys carry no project, so such failures are counted gw-wide). */
  readonly authFailed = (key: { id: string; projectId: string } | null): void => {
    const start = windowStart(this.clock.now());
    if (key === null) {
      if (this.unattributed.start !== start) this.unattributed = { start, count: 0, keyIds: new Set() };
      if (++this.unattributed.count === this.threshold) this.onUnattributedSpike(this.threshold, iso(start));
      return;
    }
    let f = this.failures.get(key.projectId);
    if (!f || f.start !== start) this.failures.set(key.projectId, (f = { start, count: 0, keyIds: new Set() }));
    f.count++;
    if (f.keyIds.size < 20) f.keyIds.add(key.id);
    const failures = f;
    // Multi-instance: every instance's count (not awaited); Redis away: this instance's.
    if (this.shared) {
      void this.shared.failures(key.projectId, start).then(
        (n) => n === this.threshold && this.spike(key.projectId, start, failures),
        () => failures.count === this.threshold && this.spike(key.projectId, start, failures),
      );
      return;
    }
    if (f.count === this.threshold) this.spike(key.projectId, start, f);
  };

  private spike(projectId: string, start: number, f: Failures): void {
    this.emit({
      projectId, type: "security.auth_failure_spike", key: iso(start),
      data: { window_start: iso(start), window_end: iso(start + WINDOW_MS), failures: this.threshold, threshold: this.threshold, key_ids: [...f.keyIds] },
    });
  }

  /** Sends every window that has ended by now (a timer calls it; tests call it after moving the clock). */
  flush(now = this.clock.now()): number {
    const due = this.ended;
    this.ended = [];
    for (const [id, t] of this.open) {
      if (t.start + WINDOW_MS <= now) (due.push(t), this.open.delete(id));
    }
    for (const [id, f] of this.failures) if (f.start + WINDOW_MS <= now) this.failures.delete(id);
    for (const t of due) this.send(t);
    return due.length;
  }

  private count(type: WindowedType, projectId: string, requestId: string, kinds: Kind[], keyId: string | null): void {
    const start = windowStart(this.clock.now());
    const id = `${type} ${projectId}`;
    let t = this.open.get(id);
    if (t && t.start !== start) (this.ended.push(t), (t = undefined));
    if (!t) this.open.set(id, (t = { type, projectId, start, count: 0, requestIds: [], kinds: new Set(), keyIds: new Set() }));
    t.count++;
    if (t.requestIds.length < MAX_REQUEST_IDS) t.requestIds.push(requestId);
    for (const k of kinds) t.kinds.add(k);
    if (keyId !== null && t.keyIds.size < 20) t.keyIds.add(keyId);
  }

  private send(t: Tally): void {
    if (this.shared) {
      const names = t.type === "security.ip_blocked" ? [...t.keyIds] : [...t.kinds];
      return this.shared.add({ type: t.type, projectId: t.projectId, start: t.start, count: t.count, requestIds: t.requestIds, names });
    }
    const data: Record<string, unknown> = {
      window_start: iso(t.start), window_end: iso(t.start + WINDOW_MS), count: t.count, request_ids: t.requestIds,
    };
    if (t.type === "security.ip_blocked") data.key_ids = [...t.keyIds];
    else data.kinds = [...t.kinds];
    this.emit({ projectId: t.projectId, type: t.type, key: iso(t.start), data });
  }
}
