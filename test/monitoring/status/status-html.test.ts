// renderStatusHtml: no script, no inline style, escaped text, 90 bars per component, under 20,480 bytes.
import { describe, expect, test } from "bun:test";
import { clipEscaped, escapeHtml, renderStatusHtml, STATUS_CSS } from "../../../src/monitoring/status/status-html.ts";
import { statusDaily, statusSummary, type StatusInput } from "../../../src/monitoring/status/summary.ts";
import { component, DAY, HOUR, incident, NOW, sampleInput } from "./sample-input.ts";

function render(input: StatusInput): string {
  return renderStatusHtml(statusSummary(input, NOW), statusDaily(input, NOW));
}

/** The worst case the issue sizes: 8 components, 90 days, 10 open and 10 recent incidents with long, escape-heavy text. */
function fullInput(): StatusInput {
  const input = sampleInput();
  const long = "<&\"'> ".repeat(200);
  input.incidents = Array.from({ length: 20 }, (_, i) => incident(`inc_${i}`, {
    name: long,
    impact: "critical",
    componentIds: input.components.map((c) => c.id),
    updates: [1, 2, 3].map((n) => ({ id: `u${i}-${n}`, status: "identified" as const, body: long, createdAt: NOW - n * HOUR })),
    ...(i >= 10 ? { status: "resolved" as const, resolvedAt: NOW - DAY } : {}),
  }));
  input.maintenances = [{ id: "mnt_1", name: long, createdAt: NOW - DAY, updatedAt: NOW - DAY, componentIds: ["cache"], updates: [], scheduledFor: NOW + DAY, scheduledUntil: NOW + DAY + HOUR, completedAt: null }];
  return input;
}

describe("the /status page (issue 18 item 5)", () => {
  test("no script, no inline style, the stylesheet linked from /status.css", () => {
    const html = render(fullInput());
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).toContain("<link rel=stylesheet href=/status.css>");
    expect(html.startsWith("<!doctype html>")).toBe(true);
  });

  test("under 20,480 bytes with 8 components, 90 days and 10 incidents (here 20 and a maintenance window)", () => {
    const html = render(fullInput());
    expect(new TextEncoder().encode(html).length).toBeLessThan(20_480);
    // ten entries in all: the ten open incidents; the window and the recent ones are counted, not shown.
    expect(html.match(/<article /g)).toHaveLength(10);
    expect(html).toContain("<p>1 more in <a href=/status.json>/status.json</a>.</p>");
    expect(html).toContain("<p>10 more in <a href=/status.json>/status.json</a>.</p>");
  });

  test("long text is cut by escaped UTF-8 bytes, never inside an escape", () => {
    const cut = clipEscaped("<".repeat(100), 50);
    expect(cut).toBe(`${"&#60;".repeat(9)}…`);
    expect(Buffer.byteLength(clipEscaped("界".repeat(500), 280))).toBeLessThanOrEqual(280);
    expect(clipEscaped("short & sweet", 280)).toBe("short &#38; sweet");
  });

  test("each component with its state and 90 bars coloured by the day's availability", () => {
    const input = sampleInput();
    input.components[2] = component("cache", { name: "Cache", health: { requests: 100, ok: 30, latencyP95Ms: 5, baselineP95Ms: 5 } });
    input.components[3] = component("provider-openai", { daily: [] });
    const html = render(input);
    expect(html.match(/<ul class=bars /g)).toHaveLength(8);
    expect(html.match(/<li class=[udpmn]>/g)).toHaveLength(720);
    // sample days: one at 90% (partial) ten days ago per component with traffic; openai has none.
    expect(html.match(/<li class=p>/g)).toHaveLength(7);
    expect(html.match(/<li class=n>/g)).toHaveLength(90);
    expect(html).toContain("<span class=name>Cache</span><span class=st-major_outage>Major outage</span>");
    expect(html).toContain("<span class=name>API</span><span class=st-operational>Operational</span>");
    expect(html).toContain("no data uptime");
    expect(html).toContain("99.87% uptime"); // (89 x 9,999 + 9,000) / 900,000, floored
    expect(html).toContain('<p class="banner s-critical">Major System Outage</p>');
  });

  test("open and recent incidents listed; none says so", () => {
    const empty = render(sampleInput());
    expect(empty).toContain("No open incidents.");
    expect(empty).toContain("No incidents in the last 7 days.");
    const input = sampleInput();
    input.incidents = [incident("inc_a", { name: "Slow answers" }), incident("inc_b", { name: "Cache misses", status: "resolved", resolvedAt: NOW - HOUR })];
    const html = render(input);
    expect(html).toContain('<article id="inc_a" class="incident i-minor"><h3>Slow answers</h3><p class=meta>investigating · since 2026-11-26T10:00:00.000Z</p><p>Error rate above 5% for 5 minutes.</p></article>');
    expect(html).toContain("<h3>Cache misses</h3><p class=meta>resolved · resolved 2026-11-26T11:00:00.000Z</p>");
    expect(html.indexOf("inc_a")).toBeLessThan(html.indexOf("Recent incidents"));
    expect(html.indexOf("inc_b")).toBeGreaterThan(html.indexOf("Recent incidents"));
  });

  test("every interpolated string is escaped", () => {
    const input = sampleInput();
    input.page.name = "<script>alert(1)</script>";
    input.components[0] = component("api", { name: "<img src=x onerror=alert(1)>" });
    input.incidents = [incident('x" onclick="alert(1)', { name: "</h3><script>", updates: [{ id: "u", status: "identified", body: "a & b <b>", createdAt: NOW }] })];
    const html = render(input);
    expect(html).not.toMatch(/<script|<img|<b>|" onclick/);
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain("&#60;img src=x onerror=alert(1)&#62;");
    expect(html).toContain('id="x&#34; onclick=&#34;alert(1)"');
    expect(html).toContain("<p>a &#38; b &#60;b&#62;</p>");
    expect(escapeHtml(`&<>"'`)).toBe("&#38;&#60;&#62;&#34;&#39;");
  });

  test("the stylesheet defines every class the page uses", () => {
    const html = render(fullInput());
    const used = new Set([...html.matchAll(/class=(?:"([^"]+)"|([\w-]+))/g)].flatMap((m) => (m[1] ?? m[2]!).split(" ")));
    for (const cls of used) {
      if (cls === "u") continue; // the bars' default colour is the up colour
      expect(STATUS_CSS).toContain(`.${cls}`);
    }
  });
});
