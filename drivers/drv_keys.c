/*
 * The one place where the library's algorithms register their configuration keys: when the
 * library is loaded, before main, so that a configuration or a context created at any time
 * (and the HYT_* variables read then) knows them.  A new algorithm adds its line here.
 *
 * The hytile command's keys ([hpl], HYT_HPL_*) are registered by the command (app/hpl_keys.c);
 * in any other program they are reserved: a config file's [hpl] section and HYT_HPL_*
 * variables are ignored there, so that one file and one environment serve both, while the
 * command itself still rejects a misspelt hpl key or HYT_HPL_ variable.
 */
#include "drv_internal.h"
#include "rt_internal.h"

/* Referenced by the build (-Wl,--undefined) so that static links keep this file. */
int hyt_drv_keys_anchor;

__attribute__((constructor)) static void drv_register_keys(void)
{
    if (hyt_lu_register_keys() || hyt_chol_register_keys() || hyt_abi_register_keys())
        hyt_rt_warn("%s", hyt_last_error());
    hyt_config_reserve("hpl", "HYT_HPL_");
}
