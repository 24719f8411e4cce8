"""users, auth and groups through the client's own methods, with its cookie session."""

import unittest

from harness import PASSWORD, unique
from stdclient import StatusCodeError, connect_json_dioptra_client


class AccountsTest(unittest.TestCase):
    def test_sign_up_log_in_read_groups_log_out(self):
        client = connect_json_dioptra_client()
        username = unique("ann")
        user = client.users.create(username, f"{username}@example.org", PASSWORD)
        self.assertEqual(user["username"], username)
        self.assertIsInstance(user["id"], int)
        with self.assertRaises(StatusCodeError) as anonymous:
            client.users.get_current()
        self.assertEqual(anonymous.exception.status_code, 401)

        self.assertEqual(client.auth.login(username, PASSWORD), {"username": username, "status": "Login successful"})
        cookies = {cookie.name: cookie for cookie in client.session.cookies}
        self.assertIn("dispatch_session", cookies)
        self.assertTrue(cookies["dispatch_session"].has_nonstandard_attr("HttpOnly"))

        current = client.users.get_current()
        self.assertEqual(current["username"], username)
        group = current["groups"][0]
        self.assertIsInstance(group["id"], int)

        page = client.groups.get()
        self.assertEqual(page["index"], 0)
        self.assertTrue(page["isComplete"])
        self.assertEqual([g["id"] for g in page["data"]], [group["id"]])
        self.assertEqual(client.groups.get_by_id(group["id"])["name"], group["name"])
        self.assertEqual(client.groups.get(search=f"name:{group['name']}")["totalNumResults"], 1)

        self.assertEqual(client.auth.logout()["status"], "Logout successful")
        with self.assertRaises(StatusCodeError) as after:
            client.users.get_current()
        self.assertEqual(after.exception.status_code, 401)

    def test_wrong_password_is_401_and_a_taken_name_409(self):
        client = connect_json_dioptra_client()
        username = unique("ben")
        client.users.create(username, f"{username}@example.org", PASSWORD)
        with self.assertRaises(StatusCodeError) as wrong:
            client.auth.login(username, "not it")
        self.assertEqual(wrong.exception.status_code, 401)
        with self.assertRaises(StatusCodeError) as taken:
            client.users.create(username, f"{username}@example.org", PASSWORD)
        self.assertEqual(taken.exception.status_code, 409)

    def test_logout_everywhere_ends_every_session(self):
        first, second = connect_json_dioptra_client(), connect_json_dioptra_client()
        username = unique("cat")
        first.users.create(username, f"{username}@example.org", PASSWORD)
        first.auth.login(username, PASSWORD)
        second.auth.login(username, PASSWORD)
        first.auth.logout(everywhere=True)
        with self.assertRaises(StatusCodeError) as ended:
            second.users.get_current()
        self.assertEqual(ended.exception.status_code, 401)


if __name__ == "__main__":
    unittest.main()
