# Is the GPU host's disk the cause of the slow PUTs after ~4,600 (issue 22)? Appends 100 KB chunks
# (about one keypoint record's overflow pages), each followed by fdatasync, as LMDB's commits do, and
# prints the rate per 200 MB, then the same as overwrites of the first chunks (LMDB reusing pages).
import os, sys, time
path = sys.argv[1]; total = int(sys.argv[2]) << 20; chunk = 100 << 10
buf = os.urandom(chunk)
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
def run(label, offset_of):
    t0 = time.time(); t = t0; done = 0; lat = []
    for i in range(total // chunk):
        s = time.time(); os.pwrite(fd, buf, offset_of(i)); os.fdatasync(fd); lat.append(time.time() - s)
        done += chunk
        if done % (200 << 20) < chunk:
            lat.sort(); now = time.time()
            print(f"{label} {done >> 20} MB: {200 / (now - t):.0f} MB/s, sync p50 {lat[len(lat)//2]*1e3:.2f} ms p99 {lat[len(lat)*99//100]*1e3:.2f} ms", flush=True)
            t = now; lat = []
    print(f"{label} total {total >> 20} MB in {time.time() - t0:.1f} s", flush=True)
run("append", lambda i: i * chunk)
run("overwrite", lambda i: (i % 2000) * chunk)
os.close(fd); os.unlink(path)
