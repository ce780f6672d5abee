#!/usr/bin/env python3
"""Issue 25: where the SURF patch kernel's time goes on a GPU, by taking parts out of it.
Rewrites kernels/ (and the host's group size) in place for one variant: `variants.py ROOT VARIANT`
on a clean checkout of the measured commit, build bovw_surf_bench, then `git checkout kernels/ src/`.
The first four give wrong descriptors on purpose: only their descriptor-stage times are read.
  noload:    a window sample's quad-image load replaced by a hash of its index (the address
             arithmetic and the bilinear arithmetic stay);
  noarith:   the load stays, the bilinear weights and rounding go (the sample is the first byte);
  nosamples: a row segment's sum is 0 without sampling (what is left: set-up, the serial row starts,
             vertical sums, barriers, launches);
  noserial:  the row starts computed by every work-item at once as start + r * step (not the CPU's
             running sums), no serial loop on work-items 0 and 1;
  groupN:    work-groups of N work-items (exact; keep has 256, next 128);
  nopatch:   surf_patch returns at once (what is left: the quad image, the band list and the
             descriptor kernel);
  unroll8:   a row segment's samples unrolled 8 deep instead of 4 (exact: more loads in flight)."""
import re
import sys

ROOT = sys.argv[1]
VARIANT = sys.argv[2]


def edit(path, old, new):
    path = f"{ROOT}/{path}"
    text = open(path).read()
    assert text.count(old) == 1, (path, old)
    open(path, "w").write(text.replace(old, new))


if VARIANT == "noload":
    edit("kernels/surf_window.h", "const uint q = quads[surf_quad_index(ix, iy, cols)];",
         "const uint q = (uint)surf_quad_index(ix, iy, cols) * 2654435761u;")
elif VARIANT == "noarith":
    edit("kernels/surf_window.h",
         "const float v = p0 * (1.f - a) * (1.f - b) + p1 * a * (1.f - b) + p2 * (1.f - a) * b + p3 * a * b;\n"
         "  return surf_round_small(v);",
         "return p0;")
elif VARIANT == "nosamples":
    edit("kernels/surf_descriptor.cl",
         "  double px = surf_running_position(start_x, g.cos_dir, cs.lo, exact_x);",
         "  if (cs.lo >= 0) return 0;\n  double px = surf_running_position(start_x, g.cos_dir, cs.lo, exact_x);")
elif VARIANT == "noserial":
    edit("kernels/surf_descriptor.cl",
         "  if (!SURF_UPRIGHT && lid < 2)\n    for (int r = 0; r < first_row; ++r) start += start_step;\n", "")
    edit("kernels/surf_descriptor.cl",
         "    if (!SURF_UPRIGHT && lid < 2) {\n",
         "    if (lid < chunk) {\n      row_x[lid] = g.x0 + (r0 + lid) * g.sin_dir;\n"
         "      row_y[lid] = g.y0 + (r0 + lid) * g.cos_dir;\n    }\n    if (lid < 2) exact[lid] = 1;\n"
         "    if (false) {\n")
elif VARIANT.startswith("group"):
    for path, pattern, form in (("kernels/surf_descriptor.cl", r"#define SURF_PATCH_GROUP \d+", "#define SURF_PATCH_GROUP {}"),
                                ("src/features/opencl/surf_describe.cpp", r"kPatchGroup = \d+;", "kPatchGroup = {};")):
        text = open(f"{ROOT}/{path}").read()
        assert len(re.findall(pattern, text)) == 1, (path, pattern)
        open(f"{ROOT}/{path}", "w").write(re.sub(pattern, form.format(VARIANT[5:]), text))
elif VARIANT == "nopatch":
    edit("kernels/surf_descriptor.cl", "  local surf_patch_scratch scratch;\n", "  local surf_patch_scratch scratch;\n  if (extra_groups >= 0) return;\n")
elif VARIANT == "unroll8":
    edit("kernels/surf_descriptor.cl", "#pragma unroll 4", "#pragma unroll 8")
else:
    sys.exit(f"unknown variant {VARIANT}")
