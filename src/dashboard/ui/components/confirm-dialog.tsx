// A modal confirmation on the native <dialog> (focus trap, Escape and the backdrop come with it):
// the caller owns `open`; the dialog reports the choice and closes on either.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import "../styles/cache.css";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** The confirming button's text (`Empty`). */
  confirmLabel: string;
  /** A destructive action gets the danger style. */
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children?: ComponentChildren;
}

export function ConfirmDialog({ open, title, confirmLabel, danger, onConfirm, onCancel, children }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      class="confirm-dialog"
      aria-labelledby={titleId}
      // Escape closes the dialog natively; tell the owner so `open` follows.
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class={danger ? "btn btn-danger" : "btn btn-primary"} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
