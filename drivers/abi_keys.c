/*
 * The LAPACK ABI's configuration key (read by lapack_abi.c when the ABI starts).  In a file of
 * its own so that the programs that only parse configurations (the fuzz targets) register it
 * without the ABI.
 */
#include "drv_internal.h"

static const hyt_config_keydef_t abi_keys[] = {
    {{"abi.min_n", "HYT_ABI_MIN_N", "auto",
      "LAPACK ABI: calls on matrices smaller than this (max(m, n)) go to the CPU LAPACK the "
      "program would use without hytile, when there is one (0..1000000; 0: none); auto: "
      HYT_STR(HYT_ABI_MIN_N_AUTO) ", and for the LU on CPU workers alone (no devices) "
      HYT_STR(HYT_ABI_MIN_N_PER_WORKER) " per worker if that is more (the crossings "
      "measured with 2 to 16 workers)"},
     HYT_KEY_INT, 0, 1000000, 1, 0, NULL},
};

int hyt_abi_register_keys(void)
{
    return hyt_config_register(abi_keys, (int)(sizeof abi_keys / sizeof abi_keys[0]));
}
