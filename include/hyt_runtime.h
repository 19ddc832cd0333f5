/* The runtime's public interface (split out of hyt_context.h by the next commit). */
#include "hyt_context.h"
