// Inline SVG icons (no icon font, no request): 24x24 strokes, decorative, so hidden from assistive tech.
import type { ComponentChildren } from "preact";

function Svg({ children }: { children: ComponentChildren }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="18" height="18" fill="none" stroke="currentColor" stroke-width="2"
      stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">
      {children}
    </svg>
  );
}

export const OverviewIcon = () => <Svg><path d="M3 3v18h18" /><path d="M7 15l4-4 3 3 5-6" /></Svg>;
export const RequestsIcon = () => <Svg><path d="M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01" /></Svg>;
export const CacheIcon = () => <Svg><ellipse cx="12" cy="5" rx="8" ry="3" /><path d="M4 5v14c0 1.7 3.6 3 8 3s8-1.3 8-3V5" /><path d="M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3" /></Svg>;
export const RecommendationsIcon = () => <Svg><path d="M9 18h6M10 22h4" /><path d="M12 2a7 7 0 0 0-4 12.7V16h8v-1.3A7 7 0 0 0 12 2z" /></Svg>;
export const ProjectsIcon = () => <Svg><path d="M3 7l2-3h5l2 3h9v13H3z" /></Svg>;
export const MonitoringIcon = () => <Svg><path d="M22 12h-4l-3 9L9 3l-3 9H2" /></Svg>;
export const StatusIcon = () => <Svg><circle cx="12" cy="12" r="9" /><path d="M8 12l3 3 5-6" /></Svg>;
export const AuditIcon = () => <Svg><path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8z" /><path d="M14 2v6h6M8 13h8M8 17h8" /></Svg>;
export const SignOutIcon = () => <Svg><path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9" /></Svg>;
export const LogoIcon = () => <Svg><path d="M4 12h6l2-6 2 12 2-6h4" /></Svg>;
