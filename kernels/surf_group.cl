// Groups a batch's SURF keypoints by image, so that each image's descriptors become consecutive
// rows as the histogram kernels expect (image i owns rows [offsets[i], offsets[i + 1])). Keypoints
// the orientation stage dropped (size <= 0) go last, as a pseudo-image n_images whose rows nobody
// reads. One work-group: counting, a scan of at most SURF_MAX_IMAGES + 1 counts, and the scatter
// are a few microseconds next to the batch's SURF stages. Order within an image is arbitrary.
#include "surf_common.h"

#define SURF_GROUP_SIZE 256
#define SURF_MAX_IMAGES 1024  // the host's limit on a batch

// offsets: n_images + 2 entries; offsets[n_images] is where the dropped keypoints start and
// offsets[n_images + 1] = n.
kernel __attribute__((reqd_work_group_size(SURF_GROUP_SIZE, 1, 1)))
void surf_group_by_image(global const surf_keypoint* restrict in, const int n, const int n_images,
                         global surf_keypoint* restrict out, global int* restrict offsets) {
  local int cursor[SURF_MAX_IMAGES + 1];
  const int lid = get_local_id(0);
  for (int i = lid; i <= n_images; i += SURF_GROUP_SIZE) cursor[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = lid; k < n; k += SURF_GROUP_SIZE) atomic_inc(&cursor[in[k].size > 0 ? in[k].image : n_images]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    int running = 0;
    for (int i = 0; i <= n_images; ++i) {
      const int count = cursor[i];
      offsets[i] = cursor[i] = running;
      running += count;
    }
    offsets[n_images + 1] = running;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = lid; k < n; k += SURF_GROUP_SIZE) {
    const surf_keypoint kp = in[k];
    out[atomic_inc(&cursor[kp.size > 0 ? kp.image : n_images])] = kp;
  }
}
