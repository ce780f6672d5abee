#!/usr/bin/env python3
"""Issue 24 experiment: tiled_tf32's B fragments for the next n-tiles loaded before the current
ones' mma.sync, in registers (kernels/tiled_tf32.cl, unstaged path only). `prefetch.py ROOT`
rewrites the kernel in place; build bovw-bench, then `git checkout kernels/`.
The SASS of 2026-12-05 (cf37899) shows a loop of 182 instructions for 32 HMMA at 126 registers
(4 groups of 4 warps per SM), and the kernel at about a third of the mma.sync peak: the warps wait
rather than issue, and each iteration's 16 fragment loads are needed at once."""
import sys

path = f"{sys.argv[1]}/kernels/tiled_tf32.cl"
text = open(path).read()


def edit(old, new):
    global text
    assert text.count(old) == 1, old
    text = text.replace(old, new)


edit('''      global const float2* frags = words_frag;
#endif
      for (int nt0 = chunk_start; nt0 < chunk_end; nt0 += BOVW_NT) {
        float c[BOVW_MT][BOVW_NT][4];''', '''      global const float2* frags = words_frag;
#endif
      float2 bcur[BOVW_KS][BOVW_NT];
#pragma unroll
      for (int ks = 0; ks < BOVW_KS; ++ks)
#pragma unroll
        for (int u = 0; u < BOVW_NT; ++u)
          bcur[ks][u] = frags[(BOVW_FRAG_TILE(chunk_start + u) * BOVW_KS + ks) * 32 + lane];
      for (int nt0 = chunk_start; nt0 < chunk_end; nt0 += BOVW_NT) {
        float2 bnext[BOVW_KS][BOVW_NT];
        const int next = min(nt0 + BOVW_NT, chunk_end - BOVW_NT);
#pragma unroll
        for (int ks = 0; ks < BOVW_KS; ++ks)
#pragma unroll
          for (int u = 0; u < BOVW_NT; ++u)
            bnext[ks][u] = frags[(BOVW_FRAG_TILE(next + u) * BOVW_KS + ks) * 32 + lane];
        float c[BOVW_MT][BOVW_NT][4];''')
edit('''            const float2 b = frags[(BOVW_FRAG_TILE(nt0 + u) * BOVW_KS + ks) * 32 + lane];''',
     '''            const float2 b = bcur[ks][u];''')
edit('''              bovw_top3(&b1[r], &b2[r], &b3[r], v);
            }
        }
      }''', '''              bovw_top3(&b1[r], &b2[r], &b3[r], v);
            }
        }
#pragma unroll
        for (int ks = 0; ks < BOVW_KS; ++ks)
#pragma unroll
          for (int u = 0; u < BOVW_NT; ++u) bcur[ks][u] = bnext[ks][u];
      }''')
open(path, "w").write(text)
