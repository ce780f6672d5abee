# Shared by the scripts that run on the GPU machine (source it; ../shared/device/README.md says how
# binaries built on the Debian 12 development machine travel there, in .device/ of the working tree).
#   bovw_use_libs LIBS        LIBS: the OUT.tar.xz of bundle-libs.sh, the folder it was unpacked into,
#                             or "-" (run on this machine's own libraries): sets LD_LIBRARY_PATH
#   bovw_opencl_env           registers NVIDIA's OpenCL driver (.device/opencl-env.sh)
#   bovw_gpu_setup            what every run script starts with: the two above (the libraries of
#                             .device/libs.tar.xz), .device/bin executable, BOVW_DEVICE=NVIDIA, and
#                             the card, its driver and clock printed
#   bovw_copy_set SET N DEST  DEST = N copies of the image set SET, names prefixed r1_ .. rN_, with
#                             their GROUPS.csv (so that a files-to-histograms run is not start-up bound)

bovw_use_libs() {
  local libs=$1
  if [ "$libs" = - ]; then
    return 0
  elif [ -d "$libs" ]; then
    export LD_LIBRARY_PATH=$libs
  elif [ -f "$libs" ]; then
    tar xJf "$libs" -C /tmp || { echo "cannot unpack $libs" >&2; return 1; }
    export LD_LIBRARY_PATH=/tmp/$(basename "$libs" .tar.xz)
  else
    echo "no carried libraries at '$libs' (a bundle-libs.sh .tar.xz, its unpacked folder, or -)" >&2
    return 1
  fi
}

bovw_opencl_env() {
  [ -f .device/opencl-env.sh ] || {
    echo ".device/opencl-env.sh is missing: copy ../shared/device/*.sh into .device/ and carry it" >&2
    return 1
  }
  source .device/opencl-env.sh
}

bovw_gpu_setup() {
  bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || return 1
  chmod +x .device/bin/*
  export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
}

bovw_copy_set() {
  local set=$1 copies=$2 dest=$3 r f
  [ -f "$set/GROUPS.csv" ] || { echo "$set/GROUPS.csv is missing" >&2; return 1; }
  rm -rf "$dest" && mkdir -p "$dest" || return 1
  head -1 "$set/GROUPS.csv" > "$dest/GROUPS.csv"
  # The copies from one process: a cp per file took minutes at 150,000 files.
  python3 - "$set" "$copies" "$dest" <<'PY' || return 1
import glob, os, shutil, sys
source, copies, dest = sys.argv[1], int(sys.argv[2]), sys.argv[3]
images = sorted(glob.glob(os.path.join(source, "*.jpg")))
for r in range(1, copies + 1):
    for image in images:
        shutil.copyfile(image, os.path.join(dest, "r%d_%s" % (r, os.path.basename(image))))
PY
  for r in $(seq 1 "$copies"); do
    tail -n +2 "$set/GROUPS.csv" | sed "s/^/r${r}_/" >> "$dest/GROUPS.csv"
  done
}
