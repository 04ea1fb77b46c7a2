/* dlc_cuda.h - the runtime's CUDA layer (private): the driver API through
 * dlopen("libcuda.so.1"), a session's device state, and the calls a GPU module's
 * host code makes (dlc_abi.h, "GPU modules").
 *
 * Nothing here links against CUDA: without a driver or a device, every entry
 * point returns a status saying so ("no CUDA device: ..."), never crashes. */
#ifndef DLC_CUDA_H
#define DLC_CUDA_H

#include "dlc_internal.h"

typedef struct dlc_cuda_session dlc_cuda_session_t;

/* Whether a device can run a module compiled for `chip` (sm_80, ..., sm_90a): loads
 * the driver once per process and checks device 0. DLC_ERROR_UNSUPPORTED with
 * "no CUDA device: <why> (module <where> runs its kernels on an NVIDIA GPU, <chip>)"
 * otherwise. The driver's path is libcuda.so.1, or $DLC_CUDA_DRIVER. */
dlc_status_t dlc_cuda_check(const char *where, const char *chip);

/* A session's device state: context, the module's kernels loaded from its PTX, a
 * stream, and device memory kept across runs (buffers, arena, weights). */
dlc_status_t dlc_cuda_session_create(const dlc_module_t *m, dlc_cuda_session_t **out);
void dlc_cuda_session_free(dlc_cuda_session_t *s);

/* One run (the tensors checked by dlc_session_run): the inputs copied to the device,
 * `entry` called on device buffers (it launches the kernels through the calls below),
 * the outputs copied back. `*rc` is the entry's return code. */
dlc_status_t dlc_cuda_session_run(dlc_cuda_session_t *s, const dlc_module_t *m,
                                  const dlc_tensor_t *const *inputs,
                                  dlc_tensor_t *const *outputs, void *runtime_ctx,
                                  int32_t *rc);

#endif
