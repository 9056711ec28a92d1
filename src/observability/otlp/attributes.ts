// OTLP/JSON attribute values (opentelemetry-proto, JSON encoding): 64-bit integers travel as
// decimal strings; absent values are left out rather than sent as empty strings.

export type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } };

export interface KeyValue {
  key: string;
  value: AnyValue;
}

export class Attributes {
  readonly list: KeyValue[] = [];

  str(key: string, value: string | null | undefined): this {
    if (value !== null && value !== undefined) this.list.push({ key, value: { stringValue: value } });
    return this;
  }

  int(key: string, value: number | null | undefined): this {
    if (value !== null && value !== undefined && Number.isFinite(value)) this.list.push({ key, value: { intValue: String(Math.round(value)) } });
    return this;
  }

  double(key: string, value: number | null | undefined): this {
    if (value !== null && value !== undefined && Number.isFinite(value)) this.list.push({ key, value: { doubleValue: value } });
    return this;
  }

  bool(key: string, value: boolean | null | undefined): this {
    if (value !== null && value !== undefined) this.list.push({ key, value: { boolValue: value } });
    return this;
  }

  strings(key: string, values: readonly string[]): this {
    if (values.length > 0) this.list.push({ key, value: { arrayValue: { values: values.map((v) => ({ stringValue: v })) } } });
    return this;
  }

  /** A span's own stored attributes (gw.<name>), typed by their JSON type. */
  any(key: string, value: string | number | boolean | null): this {
    if (typeof value === "string") return this.str(key, value);
    if (typeof value === "boolean") return this.bool(key, value);
    if (typeof value === "number") return Number.isInteger(value) ? this.int(key, value) : this.double(key, value);
    return this;
  }
}
