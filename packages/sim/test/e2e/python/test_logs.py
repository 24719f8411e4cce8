"""Following a running pod's log to its end, with the booleans the client writes (follow=True)."""

import unittest

from kubernetes import client

from harness import NAMESPACE, api_client, running_pod


class FollowLog(unittest.TestCase):
    def test_follows_a_running_pod_to_its_end(self):
        api = api_client()
        core = client.CoreV1Api(api)
        pod = running_pod(api, "follow")
        stream = core.read_namespaced_pod_log(pod, NAMESPACE, container="node", follow=True, timestamps=False, _preload_content=False, _request_timeout=120)
        lines = [line.decode() for line in stream.stream()]
        text = "".join(lines)
        # The answer ends only when the container exits: its last line says how.
        self.assertEqual(text.strip().split("\n")[-1], "[sim] exited with code 0")
        self.assertEqual(core.read_namespaced_pod(pod, NAMESPACE).status.phase, "Succeeded")

    def test_timestamps_and_previous(self):
        api = api_client()
        core = client.CoreV1Api(api)
        pod = running_pod(api, "stamps")
        stamped = core.read_namespaced_pod_log(pod, NAMESPACE, timestamps=True, tail_lines=1)
        self.assertRegex(stamped, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ")
        with self.assertRaises(client.ApiException) as raised:
            core.read_namespaced_pod_log(pod, NAMESPACE, previous=True)
        self.assertEqual(raised.exception.status, 400)


if __name__ == "__main__":
    unittest.main()
