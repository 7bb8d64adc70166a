/** Ids in paths are opaque strings; a malformed one is simply not found. */
export interface IdRequest {
  id: string;
}
