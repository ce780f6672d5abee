#!/usr/bin/env python3
"""Issue 24 experiment: tiled_tf32's lanes keep the two largest scores of a row in a block instead
of three (3 min/max instructions a score instead of 5, 4 registers fewer). The third is then only
bounded by the second: the block's (b1, b2) go in with b2 again as the bound of the rest, so a row
whose two best words fall in one lane's block can no longer be decided between them by two direct
sums and goes to the full re-check. `top2.py ROOT` rewrites kernels/tiled_tf32.cl in place; build
bovw-bench, then `git checkout kernels/`."""
import sys

path = f"{sys.argv[1]}/kernels/tiled_tf32.cl"
text = open(path).read()


def edit(old, new):
    global text
    assert text.count(old) == 1, old
    text = text.replace(old, new)


edit('''inline void bovw_top3(float* b1, float* b2, float* b3, float v) {
  const float t1 = fmin(*b1, v);
  *b1 = fmax(*b1, v);
  const float t2 = fmin(*b2, t1);
  *b2 = fmax(*b2, t1);
  *b3 = fmax(*b3, t2);
}''', '''inline void bovw_top2(float* b1, float* b2, float v) {
  const float t1 = fmin(*b1, v);
  *b1 = fmax(*b1, v);
  *b2 = fmax(*b2, t1);
}''')
edit('float b1[2 * BOVW_MT], b2[2 * BOVW_MT], b3[2 * BOVW_MT];', 'float b1[2 * BOVW_MT], b2[2 * BOVW_MT];')
edit('for (int r = 0; r < 2 * BOVW_MT; ++r) b1[r] = b2[r] = b3[r] = -INFINITY;',
     'for (int r = 0; r < 2 * BOVW_MT; ++r) b1[r] = b2[r] = -INFINITY;')
edit('bovw_top3(&b1[r], &b2[r], &b3[r], v);', 'bovw_top2(&b1[r], &b2[r], v);')
edit('''      const float found[3] = {b1[r], b2[r], b3[r]};
      for (int e = 0; e < 3; ++e) {
        const uint index = as_uint(found[e]) & low;
        bovw_insert3(&s1, &j1, &s2, &j2, &s3, found[e], (block + (int)(index / 2)) * 8 + 2 * t + (int)(index % 2));
      }''', '''      const float found[2] = {b1[r], b2[r]};
      for (int e = 0; e < 2; ++e) {
        const uint index = as_uint(found[e]) & low;
        bovw_insert3(&s1, &j1, &s2, &j2, &s3, found[e], (block + (int)(index / 2)) * 8 + 2 * t + (int)(index % 2));
      }
      bovw_insert3(&s1, &j1, &s2, &j2, &s3, b2[r], -1);  // the rest of the block: at most b2''')
open(path, "w").write(text)
