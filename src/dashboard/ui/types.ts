// The JSON the dashboard API answers (docs/dashboard.md "JSON API"); the UI's own copy of the shapes,
// so that the browser bundle imports nothing from the server.

export interface Session {
  object: "dashboard.session";
  role: "operator" | "project";
  project_id: string | null;
  key_id: string | null;
  scopes: string[];
  email: string | null;
  csrf_token: string;
  expires_at: string;
}

export interface ProjectSummary {
  id: string;
  name: string;
  plan: string;
  billing_mode: string;
  balance: number;
  created_at: string;
}

export interface List<T> {
  object: "list";
  data: T[];
  has_more?: boolean;
  next_cursor?: string | null;
}

export interface LogEntry {
  request_id: string;
  trace_id: string;
  created_at: string;
  requested_model: string | null;
  selected_model: string | null;
  provider: string | null;
  task: string | null;
  task_subtype: string | null;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  saved: number;
  cache: string | null;
  status: number;
  error: { code: string; message: string | null } | null;
  error_category: string | null;
  latency_ms: number;
  ttft_ms: number | null;
  fallbacks: number;
  workflow_id: string | null;
  step: string | null;
  tags: string[];
  endpoint: string;
  stream: boolean;
  test: boolean;
}
