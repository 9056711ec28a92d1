// Seals secrets at rest (provider keys) with AES-256-GCM. The key comes from GW_SECRET_KEY (any
// string; SHA-256 makes it 32 bytes) or, when unset, from `secret.key` in the data directory,
// generated once with mode 0600. Losing that file makes sealed secrets unreadable (docs/providers.md).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SECRET_KEY_FILE = "secret.key";

export interface SecretBox {
  seal(plain: string): string;
  /** Throws when the text was sealed with another key or was altered. */
  open(sealed: string): string;
}

export function loadSecretKey(dataDir: string, fromEnv: string | null): Buffer {
  if (fromEnv) return createHash("sha256").update(fromEnv).digest();
  const file = join(dataDir, SECRET_KEY_FILE);
  if (!existsSync(file)) {
    // Written aside, then linked into place: link() fails if another process got there first,
    // and a reader never sees a half-written key.
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(tmp, randomBytes(32).toString("base64") + "\n", { mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as { code?: string }).code !== "EEXIST") throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
  return key;
}

/** Sealed form: "v1." + base64(iv 12 bytes | tag 16 bytes | ciphertext). */
export function secretBox(key: Buffer): SecretBox {
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
    },
    open(sealed) {
      if (!sealed.startsWith("v1.")) throw new Error("unknown sealed format");
      const raw = Buffer.from(sealed.slice(3), "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
  };
}
