// A library the "missing dependency" fake plugin links against; the test
// deletes it afterwards so that dlopen of the plugin fails.
int fake_plugin_dependency(void) { return 1; }
