/** The client's version; also in the User-Agent (`gw-node/<VERSION>`). */
export const VERSION = "1.1.0";
