/** API version carried in every envelope (api-spec.md "Versioning"). */
export const API_VERSION = '0.1.0';
