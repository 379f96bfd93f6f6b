// A plugin-shaped shared object (it defines GetPjrtApi) whose dependency is
// missing at load time: dlopen must fail with the loader's message.
int fake_plugin_dependency(void);
void* GetPjrtApi(void) { return (void*)(long)fake_plugin_dependency(); }
