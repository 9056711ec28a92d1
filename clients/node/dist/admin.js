// The admin API (docs/api.md "Admin API"), called with the admin token. Creations and credits are
// not retried: the admin API takes no Idempotency-Key, so a retry could create or credit twice.
import { ApiPromise } from "./core.js";
const seg = encodeURIComponent;
class AdminProjects {
    core;
    constructor(core) {
        this.core = core;
    }
    create(body, options) {
        return new ApiPromise(this.core.json({ method: "POST", path: "/admin/projects", body, options, admin: true, retry: false }));
    }
    list(options) {
        return new ApiPromise(this.core.json({ method: "GET", path: "/admin/projects", options, admin: true }));
    }
    get(id, options) {
        return new ApiPromise(this.core.json({ method: "GET", path: `/admin/projects/${seg(id)}`, options, admin: true }));
    }
    /** `policy` is merged key by key; `null` unsets a key. */
    update(id, body, options) {
        return new ApiPromise(this.core.json({ method: "PATCH", path: `/admin/projects/${seg(id)}`, body, options, admin: true }));
    }
}
class AdminKeys {
    core;
    constructor(core) {
        this.core = core;
    }
    create(projectId, body = {}, options) {
        const path = `/admin/projects/${seg(projectId)}/keys`;
        return new ApiPromise(this.core.json({ method: "POST", path, body, options, admin: true, retry: false }));
    }
    list(projectId, options) {
        const path = `/admin/projects/${seg(projectId)}/keys`;
        return new ApiPromise(this.core.json({ method: "GET", path, options, admin: true }));
    }
    revoke(keyId, options) {
        const path = `/admin/keys/${seg(keyId)}`;
        return new ApiPromise(this.core.json({ method: "DELETE", path, options, admin: true }));
    }
}
class AdminCredits {
    core;
    constructor(core) {
        this.core = core;
    }
    /** Adds `amount` USD of credit; answers the new balance. */
    add(projectId, body, options) {
        const path = `/admin/projects/${seg(projectId)}/credits`;
        return new ApiPromise(this.core.json({ method: "POST", path, body, options, admin: true, retry: false }));
    }
}
export class Admin {
    projects;
    keys;
    credits;
    constructor(core) {
        this.projects = new AdminProjects(core);
        this.keys = new AdminKeys(core);
        this.credits = new AdminCredits(core);
    }
}
