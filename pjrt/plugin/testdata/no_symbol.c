// A well-formed shared object that is not a PJRT plugin: it does not export
// GetPjrtApi.
int NotAPjrtPlugin(void) { return 42; }
