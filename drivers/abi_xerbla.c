/*
 * XERBLA for the LAPACK ABI: the program's own, as it would be called without hytile.
 *
 * A program may override XERBLA (numpy and scipy do, in modules loaded with RTLD_LOCAL, to
 * turn a bad argument into a Python exception; R in libR).  Without hytile, the LAPACK library
 * finds that xerbla_ in its own lookup scope.  Preloaded, libhytile brings its BLAS library (and
 * that library's xerbla_) into the global scope, which is searched first: every LAPACK routine
 * would then call the BLAS library's xerbla_ instead of the program's.  So libhytile defines
 * xerbla_ itself and forwards each call to the program's: the first loaded object, other than
 * libhytile, that defines xerbla_ and is not a BLAS library (defines no dgemm_); without one,
 * the next xerbla_ after libhytile (the BLAS library's); without any, LAPACK's message.
 */
#include "drv_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef void xerbla_fn(const char *srname, const int *info, size_t srname_len);

enum { MAX_OBJECTS = 1024, MAX_SEGMENTS = 8 };

typedef struct object {
    char name[256];
    int nseg;
    uintptr_t lo[MAX_SEGMENTS], hi[MAX_SEGMENTS]; /* its loaded segments */
} object_t;

typedef struct objects {
    object_t *v;
    int n;
} objects_t;

static int collect(struct dl_phdr_info *info, size_t size, void *p)
{
    (void)size;
    objects_t *o = p;
    if (o->n == MAX_OBJECTS)
        return 1;
    object_t *ob = &o->v[o->n];
    if (strlen(info->dlpi_name) >= sizeof ob->name)
        return 0;
    strcpy(ob->name, info->dlpi_name);
    ob->nseg = 0;
    for (int i = 0; i < info->dlpi_phnum && ob->nseg < MAX_SEGMENTS; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            ob->lo[ob->nseg] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            ob->hi[ob->nseg] = ob->lo[ob->nseg] + info->dlpi_phdr[i].p_memsz;
            ob->nseg++;
        }
    o->n++;
    return 0;
}

/* name in the object ob itself (not in one of its dependencies), or NULL */
static void *own_sym(void *h, const object_t *ob, const char *name)
{
    uintptr_t p = (uintptr_t)dlsym(h, name);
    for (int s = 0; p && s < ob->nseg; s++)
        if (p >= ob->lo[s] && p < ob->hi[s])
            return (void *)p;
    return NULL;
}

/* The program's xerbla_ (see the top of the file), or NULL. */
static xerbla_fn *program_xerbla(void)
{
    static object_t v[MAX_OBJECTS]; /* under the lock: xerbla is rare, never hot */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    xerbla_fn *found = NULL;
    pthread_mutex_lock(&lock);
    objects_t o = {v, 0};
    dl_iterate_phdr(collect, &o); /* the loader's lock held: no dlopen in the callback */
    for (int i = 0; i < o.n && !found; i++) {
        void *h = dlopen(v[i].name[0] ? v[i].name : NULL, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        void *x = own_sym(h, &v[i], "xerbla_");
        if (x && x != (void *)xerbla_ && !own_sym(h, &v[i], "dgemm_"))
            found = (xerbla_fn *)x;
        dlclose(h);
    }
    pthread_mutex_unlock(&lock);
    if (!found) {
        void *next = dlsym(RTLD_NEXT, "xerbla_");
        if (next != (void *)xerbla_)
            found = (xerbla_fn *)next;
    }
    return found;
}

__attribute__((visibility("default"))) void xerbla_(const char *srname, const int *info,
                                                    size_t srname_len)
{
    xerbla_fn *f = program_xerbla();
    if (f) {
        f(srname, info, srname_len);
        return;
    }
    int len = (int)strnlen(srname, srname_len);
    while (len > 0 && srname[len - 1] == ' ')
        len--;
    fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", len,
            srname, *info);
}
