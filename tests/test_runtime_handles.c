/*
 * The per-device library handle slot (hyt_device_handle), through the public API only, as an
 * algorithm outside the library uses it: one handle per device and class, made on first use
 * (also when several threads ask at once), the creator's error returned and retried, handles
 * used from device task bodies, and every handle destroyed once, newest first, when the context
 * ends.
 */
#include "hytile.h"
#include "hyt_runtime.h"
#include "hyt_test.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct fake {
    int device, serial;
    int uses;
} fake_t;

static atomic_int created, destroyed, fail_next, serial;
static int destroy_order[16], ndestroyed;

static int fake_create(hyt_device_t *dev, void **handle)
{
    if (atomic_exchange(&fail_next, 0))
        return hyt_error(HYT_ERR_DEVICE, "fake library refuses (as asked)");
    fake_t *f = calloc(1, sizeof *f);
    if (!f)
        return HYT_ERR_NOMEM;
    f->device = hyt_device_index(dev);
    f->serial = atomic_fetch_add(&serial, 1);
    atomic_fetch_add(&created, 1);
    *handle = f;
    return HYT_SUCCESS;
}

static void fake_destroy(hyt_device_t *dev, void *handle)
{
    fake_t *f = handle;
    CHECK(f->device == hyt_device_index(dev), "handle of device %d destroyed on %d", f->device,
          hyt_device_index(dev));
    if (ndestroyed < 16)
        destroy_order[ndestroyed++] = f->serial;
    atomic_fetch_add(&destroyed, 1);
    free(f);
}

static const hyt_device_handle_class_t class_a = {"fake A", fake_create, fake_destroy};
static const hyt_device_handle_class_t class_b = {"fake B", fake_create, fake_destroy};

typedef struct race {
    hyt_device_t *dev;
    void *got;
    int rc;
} race_t;

static void *race_main(void *p)
{
    race_t *r = p;
    r->rc = hyt_device_handle(r->dev, &class_b, &r->got);
    return NULL;
}

/* A device task that counts its uses of the device's handle. */
static int use_body(const hyt_devctx_t *dc, void *args)
{
    (void)args;
    void *h;
    int rc = hyt_device_handle(dc->dev, &class_a, &h);
    if (rc)
        return rc;
    ((fake_t *)h)->uses++;
    return HYT_SUCCESS;
}

static const hyt_kernel_t use_kernel = {.name = "use_handle", .dev = use_body,
                                        .cat = HYT_CAT_GPU};

int main(void)
{
    hyt_config_t *cfg;
    hyt_context_t *ctx;
    REQUIRE(!hyt_config_create(&cfg), "config: %s", hyt_last_error());
    REQUIRE(!hyt_config_set(cfg, "runtime.workers", "2", HYT_SRC_API, NULL), "workers");
    REQUIRE(!hyt_config_set(cfg, "runtime.devices", "host:2", HYT_SRC_API, NULL), "devices");
    REQUIRE(!hyt_context_create(cfg, &ctx), "context: %s", hyt_last_error());
    hyt_device_t *d0 = hyt_context_device(ctx, 0), *d1 = hyt_context_device(ctx, 1);
    REQUIRE(d0 && d1, "two host devices");

    /* bad arguments */
    void *h = (void *)1;
    CHECK(hyt_device_handle(d0, NULL, &h) == HYT_ERR_INVALID && h == NULL, "no class");
    CHECK(hyt_device_handle(d0, &class_a, NULL) == HYT_ERR_INVALID, "no place");

    /* the creator's error comes back; the next call tries again */
    atomic_store(&fail_next, 1);
    CHECK(hyt_device_handle(d0, &class_a, &h) == HYT_ERR_DEVICE && h == NULL, "refused");
    CHECK(strstr(hyt_last_error(), "fake library refuses"), "%s", hyt_last_error());
    CHECK(atomic_load(&created) == 0, "nothing made");

    /* one per device and class, made once */
    void *a0, *a0again, *a1, *b0;
    CHECK(!hyt_device_handle(d0, &class_a, &a0) && a0, "a0: %s", hyt_last_error());
    CHECK(!hyt_device_handle(d0, &class_a, &a0again) && a0again == a0, "the same handle");
    CHECK(!hyt_device_handle(d1, &class_a, &a1) && a1 && a1 != a0, "device 1's own");
    CHECK(!hyt_device_handle(d0, &class_b, &b0) && b0 && b0 != a0, "class B's own");
    CHECK(atomic_load(&created) == 3, "made %d, expected 3", atomic_load(&created));

    /* several threads asking for a new one at once get one handle */
    enum { NT = 8 };
    race_t r[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        r[i] = (race_t){d1, NULL, -1};
        REQUIRE(!pthread_create(&th[i], NULL, race_main, &r[i]), "thread");
    }
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < NT; i++)
        CHECK(r[i].rc == 0 && r[i].got && r[i].got == r[0].got, "thread %d: rc %d", i, r[i].rc);
    CHECK(atomic_load(&created) == 4, "made %d, expected 4", atomic_load(&created));

    /* device task bodies reach the same handles */
    hyt_sequence_t *seq;
    REQUIRE(!hyt_sequence_create(ctx, &seq), "sequence");
    for (int i = 0; i < 10; i++) {
        hyt_task_desc_t d = hyt_task_desc(&use_kernel, NULL, 0);
        d.device = i % 2;
        CHECK(!hyt_task_insert(seq, &d), "insert: %s", hyt_last_error());
    }
    CHECK(!hyt_sequence_wait(seq), "tasks: %s", hyt_last_error());
    hyt_sequence_destroy(seq);
    CHECK(((fake_t *)a0)->uses == 5 && ((fake_t *)a1)->uses == 5, "uses %d %d",
          ((fake_t *)a0)->uses, ((fake_t *)a1)->uses);
    CHECK(atomic_load(&created) == 4 && atomic_load(&destroyed) == 0, "alive until the end");

    /* the context's end destroys each once, newest first on each device */
    hyt_context_destroy(ctx);
    hyt_config_destroy(cfg);
    CHECK(atomic_load(&destroyed) == 4, "destroyed %d of 4", atomic_load(&destroyed));
    /* device 0 made serials 0 (a0) and 2 (b0): b0 goes first; device 1 made 1 and 3 */
    CHECK(ndestroyed == 4 && destroy_order[0] == 2 && destroy_order[1] == 0 &&
              destroy_order[2] == 3 && destroy_order[3] == 1,
          "order %d %d %d %d", destroy_order[0], destroy_order[1], destroy_order[2],
          destroy_order[3]);
    return test_result("runtime_handles");
}
