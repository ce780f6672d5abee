#!/usr/bin/env python3
"""End-to-end tests of `bovw serve`: the real server on a free port of 127.0.0.1, spoken to over HTTP.

Usage: test_serve.py --bovw PATH/TO/bovw --data tests/data [unittest options]

The image set is test_retrieval.py's (4 scenes x 4 views). Checked:
- searches equal `bovw search`'s on the same database and options (names, order, scores to 1e-9,
  inliers and verification); PUT, DELETE and GET /images round trips, seen by `bovw list` in another
  process; names with spaces, slashes, '%', '+' and non-ASCII come back exactly; PUT of a name held
  replaces its image;
- kill -9 of the server during streams of PUTs from three clients, then a restart: every PUT answered
  2xx is there; concurrent PUTs and DELETEs share durable writes (group commit) and each keeps its own
  outcome (a name several clients PUT held once, a name deleted twice: 200 then 404);
- searches during PUTs and DELETEs never fail; concurrent searches whose features run in one batch
  (--batch-images) each get their own answer, and batches of several images form;
- every error status: 400 (undecodable, empty, bad parameters), 401 (token missing or wrong, for
  writes; for reads with --token-for-reads), 404, 405, 413 answered before the body is sent, 422,
  503 (one worker, no queue); a .bovwdb file is served read-only (PUT: 405);
- SIGTERM during a search: the search is answered, the server exits 0; HTTPS with --tls-cert;
- docs/openapi.yaml: every operation it describes answers with a status it lists, and every route
  the server has is described; command-line refusals (exit 2 usage, 1 with one line).
Random choices come from BOVW_TEST_SEED, printed at the start.

Needs numpy and python3-opencv (Debian packages), python3-yaml for the OpenAPI check; exit status 77
(CTest: skipped) without numpy or OpenCV.
"""
import http.client
import json
import os
import random
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_retrieval as base  # noqa: E402 (the image set, run() and the test case helpers)

SET = None
SEED = None
OPENAPI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "openapi.yaml")


def setUpModule():
    global SET
    SET = base.shared_set("bovw_serve_cli_")


def tearDownModule():
    if SET is not None:
        shutil.rmtree(SET.root, ignore_errors=True)


def image_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def quoted(name):
    return "/images/" + urllib.parse.quote(name, safe="")


class Server:
    """A `bovw serve` process on a free port; stopped (SIGKILL if it hangs) by stop()."""

    def __init__(self, *args, expect_ready=True, env=None):
        self.process = subprocess.Popen([base.BOVW, "serve", "--listen", "127.0.0.1:0", *[str(a) for a in args]],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.port = None
        self.scheme = "http"
        if expect_ready:
            line = self.process.stdout.readline()  # the ready line, once the database is loaded
            if "ready on" not in line:
                self.process.kill()
                raise AssertionError("no ready line: %r %s" % (line, self.process.stderr.read()))
            self.scheme = line.split("ready on ")[1].split(":")[0]
            self.port = int(line.split("ready on ")[1].split(":")[2].split(" ")[0])

    def connection(self, timeout=60):
        if self.scheme == "https":
            context = ssl.create_default_context(cafile=self.certificate)
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=context)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None):
        """(status, headers, parsed JSON or text) of one request on a new connection."""
        connection = self.connection()
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
            kind = response.getheader("Content-Type", "")
            answer = json.loads(data) if kind.startswith("application/json") else data.decode()
            return response.status, response, answer
        finally:
            connection.close()

    def search(self, path, query="", **headers):
        return self.request("POST", "/search" + query, image_bytes(path), headers)

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("the server did not stop within 30 s of the signal")
        out, err = self.process.communicate()
        return self.process.returncode, out, err


class ServeTestCase(base.RetrievalTestCase):
    def setUp(self):
        super().setUp()
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            if server.process.poll() is None:
                server.process.kill()
                server.process.wait()
            for stream in (server.process.stdout, server.process.stderr):
                stream.close()
        super().tearDown()

    def serve(self, *args, **kwargs):
        server = Server(*args, **kwargs)
        self.servers.append(server)
        return server

    def live(self, keypoints=True, name="L"):
        path = self.path(name)
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", path, "--live", "--quiet",
                *(["--keypoints"] if keypoints else []))
        return path

    def cli_search(self, database, query, *extra):
        """`bovw search`'s JSON results for one query: [(name, score, inliers, verified)]."""
        out = json.loads(self.ok("search", "--index", database, "--format", "json", "--quiet", *extra, query).stdout)
        return [(r["image"], r["score"], r.get("inliers", -1), r.get("verified", False)) for r in out[0]["results"]]

    def names(self, database):
        return self.ok("list", "--index", database).stdout.splitlines()


class RoundTrips(ServeTestCase):
    def assertSameResults(self, served, expected):
        self.assertEqual([r["name"] for r in served], [e[0] for e in expected])
        for got, (name, score, inliers, verified) in zip(served, expected):
            self.assertAlmostEqual(got["score"], score, delta=1e-9, msg=name)
            self.assertEqual(got["inliers"], inliers, name)
            self.assertEqual(got["verified"], verified, name)

    def test_searches_equal_the_cli_with_and_without_verification(self):
        live = self.live()
        server = self.serve("--index", live)
        for query in SET.paths + [SET.new_view]:
            for params, extra in (("?top=16", ("--top", 16)),
                                  ("?top=5&verify=8", ("--top", 5, "--verify", 8)),
                                  ("?top=16&scoring=cosine%2Bsqrt", ("--top", 16, "--scoring", "cosine+sqrt"))):
                status, _, answer = server.search(query, params)
                self.assertEqual(status, 200, answer)
                self.assertSameResults(answer["results"], self.cli_search(live, query, *extra))
                if "verify" in params:
                    self.assertEqual(answer["verified"], sum(r["verified"] for r in answer["results"]))
                self.assertGreater(answer["features"], 0)
        self.assertEqual(server.stop()[0], 0)

    def test_concurrent_searches_in_feature_batches_equal_the_cli(self):
        # Batching forced on (a GPU turns it on by itself): the features of searches in flight together
        # run as one batch (ImageSearch::words of several images), and each answer is still its own.
        live = self.live()
        server = self.serve("--index", live, "--batch-images", 4, "--workers", 6)
        queries = SET.paths + [SET.new_view]
        expected = {q: self.cli_search(live, q, "--top", 5, "--verify", 8) for q in queries}
        failures = []

        def searcher(offset):
            for i in range(len(queries)):
                query = queries[(offset + i) % len(queries)]
                status, _, answer = server.search(query, "?top=5&verify=8")
                try:
                    self.assertEqual(status, 200, answer)
                    self.assertSameResults(answer["results"], expected[query])
                except AssertionError as e:
                    failures.append((query, str(e)))

        threads = [threading.Thread(target=searcher, args=(3 * t,)) for t in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        metrics = server.request("GET", "/metrics")[2]
        counts = {line.split('le="')[1].split('"')[0]: float(line.split()[-1]) for line in metrics.splitlines()
                  if line.startswith("bovw_feature_batch_images_bucket")}
        total = float(metrics.split("bovw_feature_batch_images_sum ")[1].split()[0])
        self.assertEqual(total, 6 * len(queries))  # every search's image in one batch
        self.assertEqual(counts["4"], counts["+Inf"])  # none over the limit
        self.assertLess(counts["1"], counts["+Inf"])  # six clients and six workers: batches of several
        self.assertEqual(server.stop()[0], 0)

    def test_signatures_scanned_on_the_device_search_as_the_cli(self):
        # The stored signatures copied to the OpenCL device (PoCL's here) and following the PUTs and
        # DELETEs: the Hamming rankings are the CLI's, which scans them on the host.
        live = self.live()
        server = self.serve("--index", live, "--signatures", "device")
        self.assertNotIn(server.request("GET", "/health")[2]["signatures"], ("host", ""))
        self.assertEqual(server.request("PUT", quoted("copy"), image_bytes(SET.new_view))[0], 200)
        self.assertEqual(server.request("DELETE", quoted(SET.paths[3]))[0], 200)
        for query in SET.paths[:6] + [SET.new_view]:
            status, _, answer = server.search(query, "?top=16")
            self.assertEqual(status, 200, answer)
            self.assertSameResults(answer["results"], self.cli_search(live, query, "--top", 16))
        self.assertEqual(server.stop()[0], 0)

    def test_put_delete_and_list_round_trips_seen_by_other_processes(self):
        live = self.live(name="L")
        server = self.serve("--index", live)
        odd = "new dir/ü é+50%.png"
        status, _, answer = server.request("PUT", quoted(odd), image_bytes(SET.new_view))
        self.assertEqual(status, 200, answer)
        self.assertEqual(answer["name"], odd)
        self.assertGreater(answer["keypoints"], 0)
        # Durable and visible to another process as soon as the answer came.
        self.assertIn(odd, self.names(live))
        status, _, answer = server.search(SET.new_view, "?top=1&scoring=intersection")
        self.assertEqual(answer["results"][0]["name"], odd)
        self.assertAlmostEqual(answer["results"][0]["score"], 1.0, delta=1e-9)  # by words, an image is itself
        status, _, answer = server.search(SET.new_view, "?top=1")  # the default: Hamming embedding (keypoints)
        self.assertEqual(answer["results"][0]["name"], odd)
        # Listed, page by page, exactly as `bovw list` lists them.
        listed, offset = [], 0
        while offset is not None:
            status, _, page = server.request("GET", "/images?limit=5&offset=%d" % offset)
            self.assertEqual(status, 200, page)
            self.assertEqual(page["total"], 17)
            listed += page["images"]
            offset = page["next"]
        self.assertEqual(listed, self.names(live))
        # A PUT of a name held replaces its image: the query now finds it only as another image.
        status, _, answer = server.request("PUT", quoted(odd), image_bytes(SET.paths[15]))
        self.assertEqual(status, 200, answer)
        self.assertEqual(server.request("GET", "/health")[2]["images"], 17)
        status, _, answer = server.search(SET.paths[15], "?top=2")
        self.assertEqual({r["name"] for r in answer["results"]}, {odd, SET.paths[15]})
        # DELETE: 200, then 404; never found again.
        self.assertEqual(server.request("DELETE", quoted(odd))[0], 200)
        status, _, answer = server.request("DELETE", quoted(odd))
        self.assertEqual(status, 404, answer)
        self.assertNotIn(odd, self.names(live))
        for query in (SET.new_view, SET.paths[15]):
            self.assertNotIn(odd, [r["name"] for r in server.search(query, "?top=17")[2]["results"]])
        # The final database searches as the CLI's (another process that reads the same store).
        self.assertSameResults(server.search(SET.new_view, "?top=16")[2]["results"],
                               self.cli_search(live, SET.new_view, "--top", 16))

    def test_a_file_database_is_served_read_only(self):
        database = self.path("D.bovwdb")
        self.ok("index", SET.images, "--vocabulary", SET.vocabulary, "--output", database, "--quiet")
        server = self.serve("--index", database)
        status, _, answer = server.search(SET.new_view, "?top=16")
        self.assertEqual(status, 200, answer)
        self.assertSameResults(answer["results"], self.cli_search(database, SET.new_view, "--top", 16))
        status, response, answer = server.request("PUT", quoted("x.png"), image_bytes(SET.new_view))
        self.assertEqual(status, 405, answer)
        self.assertIn("live database", answer["error"])
        self.assertEqual(server.request("DELETE", quoted(SET.paths[0]))[0], 405)


def write_batches(metrics):
    """(durable writes, requests they carried) from the server's /metrics text."""
    count = float(metrics.split("bovw_write_batch_requests_count ")[1].split()[0])
    total = float(metrics.split("bovw_write_batch_requests_sum ")[1].split()[0])
    return count, total


class Durability(ServeTestCase):
    def test_every_acknowledged_put_survives_kill_9(self):
        # Three writers at once, so that the kills also fall during writes that carry several PUTs
        # (group commit): each PUT is answered only once the write that carries it is durable.
        rng = random.Random(SEED)
        live = self.live(keypoints=False)
        acknowledged = set()
        for round_ in range(3):
            server = self.serve("--index", live, "--workers", 3)
            stop = threading.Event()

            def writer(w):
                i = 0
                while not stop.is_set():
                    name = "round%d/writer%d/put%03d.png" % (round_, w, i)
                    try:
                        status, _, _ = server.request("PUT", quoted(name), image_bytes(SET.paths[(i + w) % 16]))
                    except (OSError, http.client.HTTPException):
                        return  # the server died mid-request: this PUT was not acknowledged
                    if status == 200:
                        acknowledged.add(name)
                    i += 1

            threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0.3, 1.5))
            server.process.kill()
            server.process.wait()
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
                self.assertFalse(thread.is_alive())
        names = set(self.names(live))
        self.assertTrue(acknowledged, "no PUT was answered before the kills")
        self.assertEqual(acknowledged - names, set(), "acknowledged PUTs lost by kill -9")
        # The restarted server sees them and searches.
        server = self.serve("--index", live)
        status, _, health = server.request("GET", "/health")
        self.assertEqual(health["images"], len(names))
        self.assertEqual(server.search(SET.new_view)[0], 200)

    def test_concurrent_writes_share_durable_writes_and_keep_their_own_outcomes(self):
        # Group commit: PUTs that reach the store together go in one durable write. Each request's
        # outcome must still be what it would be one at a time: eight clients PUT names of their own
        # and one name all of them PUT (a write holding a name twice is made again one request at a
        # time), then DELETE their names, the shared one and a name nobody has.
        live = self.live(keypoints=False)
        before = self.names(live)
        server = self.serve("--index", live, "--workers", 8, "--batch-images", 4)
        clients, own = 8, 3
        shared = "group/shared.png"
        statuses = {}

        def client(c, work):
            for method, name, image in work(c):
                status, _, answer = server.request(method, quoted(name), image and image_bytes(image))
                statuses.setdefault((method, name), []).append((status, answer))

        def run(work):
            threads = [threading.Thread(target=client, args=(c, work)) for c in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        mine = lambda c: ["group/%d/%d.png" % (c, i) for i in range(own)]  # noqa: E731
        run(lambda c: [("PUT", name, SET.paths[(c + i) % 16]) for i, name in enumerate(mine(c))] +
            [("PUT", shared, SET.paths[c % 16])])
        for c in range(clients):
            for name in mine(c):
                self.assertEqual([s for s, _ in statuses[("PUT", name)]], [200], name)
        self.assertEqual([s for s, _ in statuses[("PUT", shared)]], [200] * clients)
        # Another process sees every acknowledged PUT, and the shared name once.
        listed = self.names(live)
        self.assertEqual(sorted(listed), sorted(before + [n for c in range(clients) for n in mine(c)] + [shared]))
        # Every PUT went into exactly one durable write, and some write carried several.
        writes, carried = write_batches(server.request("GET", "/metrics")[2])
        self.assertEqual(carried, clients * (own + 1))
        self.assertLess(writes, carried)
        # The database searches as the CLI's (another process, the same store).
        self.assertEqual([r["name"] for r in server.search(SET.new_view, "?top=20")[2]["results"]],
                         [r[0] for r in self.cli_search(live, SET.new_view, "--top", 20)])

        run(lambda c: [("DELETE", name, None) for name in mine(c)] + [("DELETE", shared, None)] +
            ([("DELETE", "group/nobody.png", None)] if c < 2 else []))
        for c in range(clients):
            for name in mine(c):
                self.assertEqual([s for s, _ in statuses[("DELETE", name)]], [200], name)
        self.assertEqual(sorted(s for s, _ in statuses[("DELETE", shared)]), [200] + [404] * (clients - 1))
        self.assertEqual([s for s, _ in statuses[("DELETE", "group/nobody.png")]], [404, 404])
        self.assertEqual(sorted(self.names(live)), sorted(before))
        self.assertEqual(server.stop()[0], 0)

    def test_searches_during_puts_and_deletes_never_fail(self):
        live = self.live()
        server = self.serve("--index", live)
        failures, searches = [], [0]
        done = threading.Event()

        def searcher():
            while not done.is_set():
                status, _, answer = server.search(SET.new_view, "?top=5&verify=5")
                searches[0] += 1
                if status != 200 or len(answer["results"]) != 5:
                    failures.append((status, answer))

        threads = [threading.Thread(target=searcher) for _ in range(3)]
        for t in threads:
            t.start()
        for i in range(20):
            name = "churn%d.png" % (i % 4)
            if i % 2 == 0:
                self.assertEqual(server.request("PUT", quoted(name), image_bytes(SET.paths[i % 16]))[0], 200)
            else:
                self.assertEqual(server.request("DELETE", quoted("churn%d.png" % ((i - 1) % 4)))[0], 200)
        done.set()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertGreater(searches[0], 3)
        # Every write's stages: 10 PUTs (waiting, features, storing) and 10 DELETEs (waiting, storing).
        metrics = server.request("GET", "/metrics")[2]
        for stage, count in (("waiting", 20), ("features", 10), ("storing", 20)):
            self.assertIn('bovw_write_stage_seconds_count{stage="%s"} %d' % (stage, count), metrics)

    def test_sigterm_answers_the_search_in_flight_and_exits_0(self):
        live = self.live()
        server = self.serve("--index", live)
        answers = []
        thread = threading.Thread(target=lambda: answers.append(server.search(SET.new_view, "?top=16&verify=16")))
        thread.start()
        time.sleep(0.05)
        code, out, err = server.stop(signal.SIGTERM)
        thread.join()
        self.assertEqual(code, 0, err)
        self.assertIn("stopped", out)
        if answers:  # the search was in flight (or done): it was answered
            self.assertEqual(answers[0][0], 200)


class MallocHugePages(ServeTestCase):
    """The server restarts itself with glibc's malloc in huge pages (apps/bovw/malloc_huge_pages.hpp),
    as the same process, unless GLIBC_TUNABLES names that tunable already."""

    def started_with(self, tunables):
        """The server's environment as the kernel keeps it, where glibc, reading its tunables, splits
        GLIBC_TUNABLES's value at each ':' (so each tunable is one entry)."""
        environment = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
        if tunables is not None:
            environment["GLIBC_TUNABLES"] = tunables
        server = self.serve("--index", self.database, env=environment)
        with open("/proc/%d/environ" % server.process.pid, "rb") as f:
            entries = f.read().decode().split("\0")
        self.assertEqual(server.request("GET", "/health")[0], 200)  # the process Popen started answers
        code, _, err = server.stop()
        self.assertEqual(code, 0, err)
        return entries

    @unittest.skipUnless(tuple(map(int, os.confstr("CS_GNU_LIBC_VERSION").split()[-1].split("."))) >= (2, 35),
                         "glibc.malloc.hugetlb needs glibc 2.35")
    def test_added_to_the_tunables_unless_named_there(self):
        self.database = self.live(keypoints=False)
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.hugetlb=1", self.started_with(None))
        entries = self.started_with("glibc.malloc.arena_max=2")
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.arena_max=2", entries)
        self.assertIn("glibc.malloc.hugetlb=1", entries)
        entries = self.started_with("glibc.malloc.hugetlb=0")
        self.assertIn("GLIBC_TUNABLES=glibc.malloc.hugetlb=0", entries)
        self.assertFalse(any("hugetlb=1" in e for e in entries), entries)


class Refusals(ServeTestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir_ = base.tempfile.mkdtemp(prefix="bovw_serve_refusals_")
        cls.database = os.path.join(cls.dir_, "L")
        result = base.run("index", SET.images, "--vocabulary", SET.vocabulary, "--output", cls.database, "--live",
                          "--quiet", "--keypoints")
        assert result.returncode == 0, base.describe(result)
        cls.token = os.path.join(cls.dir_, "token")
        with open(cls.token, "w") as f:
            f.write(secrets.token_hex(16) + "\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir_, ignore_errors=True)

    def assertError(self, answer, status, expected_status, *words):
        self.assertEqual(status, expected_status, answer)
        self.assertIsInstance(answer, dict, answer)
        for word in words:
            self.assertIn(word, answer["error"])

    def test_bad_requests(self):
        server = self.serve("--index", self.database)
        status, _, answer = server.request("POST", "/search", b"not an image at all")
        self.assertError(answer, status, 400, "cannot decode")
        status, _, answer = server.request("POST", "/search", b"")
        self.assertError(answer, status, 400, "empty")
        with open(SET.paths[0], "rb") as f:
            cut = f.read()[:300]  # a truncated PNG: refused like the CLI refuses the file
        status, _, answer = server.request("POST", "/search", cut)
        self.assertError(answer, status, 400)
        for query in ("?top=0", "?top=x", "?verify=-1", "?scoring=nonsense", "?color=red"):
            status, _, answer = server.search(SET.new_view, query)
            self.assertError(answer, status, 400)
        status, _, answer = server.request("GET", "/nothing")
        self.assertError(answer, status, 404)
        status, _, answer = server.request("DELETE", quoted("never added.png"))
        self.assertError(answer, status, 404, "never added.png")
        status, response, answer = server.request("GET", "/search")
        self.assertError(answer, status, 405)
        self.assertEqual(response.getheader("Allow"), "POST")
        status, _, answer = server.request("PATCH", quoted("a.png"), b"x")
        self.assertError(answer, status, 405)
        status, _, answer = server.request("PUT", quoted("bad\nname.png"), image_bytes(SET.new_view))
        self.assertError(answer, status, 400, "control character")

    def test_a_body_over_the_limit_is_refused_before_it_is_sent(self):
        server = self.serve("--index", self.database, "--max-body-bytes", 100000)
        for method, path in (("POST", "/search"), ("PUT", quoted("big.png"))):
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
                s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000000\r\n\r\n" % (method, path)).encode())
                start = time.time()
                answer = s.recv(65536).decode(errors="replace")
                self.assertLess(time.time() - start, 5)
                self.assertTrue(answer.startswith("HTTP/1.1 413"), answer)
                self.assertIn("Connection: close", answer)
        # A chunked body is cut off once it passes the limit.
        connection = server.connection()
        connection.putrequest("POST", "/search")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        try:
            for _ in range(20):
                connection.send(b"%x\r\n%s\r\n" % (20000, b"\0" * 20000))
            connection.send(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection once it had refused the body
        response = connection.getresponse()
        self.assertEqual(response.status, 413)
        # A body under the limit goes through.
        self.assertEqual(server.search(SET.new_view)[0], 200)

    def test_an_image_over_the_pixel_limit_is_422(self):
        server = self.serve("--index", self.database, "--max-pixels", 1000)
        status, _, answer = server.search(SET.new_view)
        self.assertError(answer, status, 422, "pixels")

    def test_a_full_queue_is_503(self):
        server = self.serve("--index", self.database, "--workers", 1, "--queue", 0)
        statuses = []
        barrier = threading.Barrier(12)

        def client():
            barrier.wait()
            statuses.append(server.search(SET.new_view, "?top=16&verify=16")[0])

        threads = [threading.Thread(target=client) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(set(statuses) - {200, 503}, set(), statuses)
        self.assertIn(503, statuses)
        self.assertIn(200, statuses)
        metrics = server.request("GET", "/metrics")[2]
        self.assertIn('bovw_requests_total{code="503",method="POST",route="/search"}', metrics)
        # Each search answered 200 went through the three stages once; those refused 503 through none.
        for stage in ("waiting", "features", "ranking"):
            self.assertIn('bovw_search_stage_seconds_count{stage="%s"} %d' % (stage, statuses.count(200)), metrics)

    def test_the_token(self):
        with open(self.token) as f:
            token = f.read().strip()
        server = self.serve("--index", self.database, "--token-file", self.token)
        image = image_bytes(SET.new_view)
        status, response, answer = server.request("PUT", quoted("t.png"), image)
        self.assertError(answer, status, 401, "token")
        self.assertEqual(response.getheader("WWW-Authenticate"), "Bearer")
        status, _, answer = server.request("PUT", quoted("t.png"), image, {"Authorization": "Bearer wrong"})
        self.assertError(answer, status, 401, "wrong")
        status, _, answer = server.request("DELETE", quoted(SET.paths[0]))
        self.assertError(answer, status, 401)
        self.assertEqual(server.request("PUT", quoted("t.png"), image, {"Authorization": "Bearer " + token})[0], 200)
        self.assertEqual(server.search(SET.new_view)[0], 200)  # reads need none
        server.stop()
        strict = self.serve("--index", self.database, "--token-file", self.token, "--token-for-reads")
        self.assertEqual(strict.search(SET.new_view)[0], 401)
        self.assertEqual(strict.request("GET", "/images")[0], 401)
        self.assertEqual(strict.request("GET", "/health")[0], 200)
        self.assertEqual(strict.search(SET.new_view, Authorization="Bearer " + token)[0], 200)

    def test_https(self):
        if shutil.which("openssl") is None:
            self.skipTest("openssl (Debian package openssl) is not installed")
        certificate, key = self.path("cert.pem"), self.path("key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
                        certificate], check=True, capture_output=True)
        server = self.serve("--index", self.database, "--tls-cert", certificate, "--tls-key", key)
        self.assertEqual(server.scheme, "https")
        server.certificate = certificate
        status, _, answer = server.search(SET.new_view, "?top=3")
        self.assertEqual(status, 200, answer)
        self.assertEqual(len(answer["results"]), 3)

    def test_command_line_refusals(self):
        for args in (("--listen", "127.0.0.1:99999"), ("--listen", "nonsense"), ("--connections", 0)):
            self.fails("serve", "--index", self.database, *args, status=2)
        result = self.fails("serve", "--index", self.database, "--token-for-reads")
        self.assertIn("--token-file", result.stderr)
        empty = self.path("empty-token")
        open(empty, "w").close()
        self.fails("serve", "--index", self.database, "--token-file", empty, names=[empty, "empty"])
        self.fails("serve", "--index", self.path("missing"), names=[self.path("missing")])
        blocker = self.serve("--index", self.database)
        result = self.fails("serve", "--index", self.database + "-other", "--listen", "127.0.0.1:%d" % blocker.port)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1, base.describe(result))


class OpenApi(ServeTestCase):
    def test_the_description_matches_the_server(self):
        try:
            import yaml
        except ImportError:
            self.skipTest("python3-yaml is not installed")
        with open(OPENAPI) as f:
            spec = yaml.safe_load(f)
        self.assertTrue(spec["openapi"].startswith("3."))
        live = self.live()
        server = self.serve("--index", live)
        examples = {"/images/{name}": quoted("openapi check.png")}
        bodies = {"put": image_bytes(SET.new_view), "post": image_bytes(SET.new_view)}
        order = {"put": 0, "get": 1, "post": 2, "delete": 3}  # PUT first, so that DELETE finds the image
        operations = [(path, method, op) for path, item in spec["paths"].items() for method, op in item.items()
                      if method in order]
        for path, method, operation in sorted(operations, key=lambda o: order.get(o[1], 9)):
            status, response, answer = server.request(method.upper(), examples.get(path, path), bodies.get(method))
            self.assertIn(str(status), operation["responses"], "%s %s answered %d" % (method, path, status))
            content = operation["responses"][str(status)].get("content", {})
            kind = response.getheader("Content-Type").split(";")[0]
            self.assertIn(kind, content, "%s %s" % (method, path))
            schema = content[kind].get("schema", {})
            if "$ref" in schema:
                schema = spec["components"]["schemas"][schema["$ref"].split("/")[-1]]
            for field in schema.get("required", []):
                self.assertIn(field, answer, "%s %s: %s" % (method, path, field))
        # Every route the server has is described.
        for route in ("/health", "/metrics", "/images", "/images/{name}", "/search"):
            self.assertIn(route, spec["paths"])


def choose_seed():
    global SEED
    SEED = base.choose_seed()


if __name__ == "__main__":
    sys.exit(base.main("test_serve.py", choose_seed))
