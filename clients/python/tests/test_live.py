"""The Python client against a running service (the demo data), as `npm test` starts it: test/clients/pythonClient.test.ts.

PLATFORM_API_URL and PLATFORM_API_TOKEN (ada, an admin of Acme) say where; PLATFORM_API_COLLABORATOR_TOKEN is
linus's (a collaborator), PLATFORM_API_LIMITED_URL a second service whose limit is 3 requests a minute.
"""
import inspect
import os
import time
import unittest

from platform_api import (
    APIError,
    Client,
    ForbiddenError,
    NotFoundError,
    RateLimit,
    RateLimitedError,
    UnauthorizedError,
    UriTooLongError,
    ValidationError,
)

URL = os.environ["PLATFORM_API_URL"]
TOKEN = os.environ["PLATFORM_API_TOKEN"]

# The demo data's well-known ids (db/demo/fixtures.ts), by the name of the path parameter they fill.
PATH_IDS = {
    "user_id": "usr_ada",
    "organization_id": "org_acme",
    "team_id": "team_platform",
    "id": "gapp_acme_github",
    "repo": "repo_acme_api",
    "pr": "pr_acme_api_1",
}


def positional(method):
    return [p.name for p in inspect.signature(method).parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]


class EveryOperation(unittest.TestCase):
    def setUp(self):
        self.client = Client(TOKEN, URL)

    def test_every_list_answers_a_page_of_items(self):
        lists = [name for name in dir(self.client) if name.startswith("list_")]
        self.assertGreaterEqual(len(lists), 30)
        for name in lists:
            method = getattr(self.client, name)
            with self.subTest(operation=name):
                page = method(*[PATH_IDS[arg] for arg in positional(method)], per_page=5)
                self.assertEqual(page["status"], "success")
                self.assertLessEqual(len(page["data"]), 5)
                self.assertEqual(page["meta"]["per_page"], 5)

    def test_every_get_answers_its_item(self):
        first = lambda page: page["data"][0]["id"]  # noqa: E731
        calls = {
            "get_user": ("usr_ada",),
            "get_user_app": ("usr_ada", first(self.client.list_user_apps("usr_ada"))),
            "get_user_dashboard_view": ("usr_ada", "view_ada_private"),
            "get_user_team": ("usr_ada", "team_mobile"),
            "get_organization": ("org_acme",),
            "get_team": ("team_platform",),
            "get_team_member": ("team_platform", "usr_linus"),
            "get_dashboard_view": ("view_acme_org",),
        }
        gets = [name for name in dir(self.client) if name.startswith("get_") and not name.endswith("_metrics")]
        self.assertEqual(sorted(gets), sorted(calls))
        # The item's own id field: a user's team membership is named by its team.
        id_field = {"get_user_team": "team_id"}
        for name, args in calls.items():
            with self.subTest(operation=name):
                item = getattr(self.client, name)(*args)
                self.assertEqual(item[id_field.get(name, "id")], args[-1])

    def test_every_metric_for_an_organization_and_a_team(self):
        metrics = [name for name in dir(self.client) if name.endswith("_metrics")]
        self.assertEqual(len(metrics), 8)
        for name in metrics:
            with self.subTest(operation=name):
                answer = getattr(self.client, name)(organization_id="org_acme", from_="2026-10-01", to="2026-10-28")
                self.assertEqual(answer["meta"], {"settings_version": 0})
                figures = answer["data"]
                self.assertEqual(figures["scope"]["organization_id"], "org_acme")
                self.assertEqual((figures["from"], figures["to"]), ("2026-10-01", "2026-10-28"))
        weekly = self.client.get_dora_metrics(team_id="team_platform", interval="week")
        self.assertEqual(weekly["data"]["interval"], "week")

    def test_parameters_are_sent_as_the_api_names_them(self):
        page = self.client.list_users(created_at_eq="2024-03-15", sort="name", order="asc", fields="id,name")
        self.assertEqual([user["id"] for user in page["data"]], ["usr_linus"])
        self.assertEqual(set(page["data"][0]), {"id", "name"})


class Paging(unittest.TestCase):
    def test_iter_walks_every_page_to_the_end(self):
        client = Client(TOKEN, URL)
        total = client.list_organization_members("org_acme", per_page=1)["meta"]["total"]
        members = list(client.iter_organization_members("org_acme", per_page=7, sort="name", order="asc"))
        self.assertEqual(len(members), total)
        self.assertEqual(len({m["id"] for m in members}), total)
        self.assertEqual([m["name"] for m in members], sorted((m["name"] for m in members), key=lambda n: n))

    def test_rate_limit_figures_of_the_last_answer(self):
        client = Client(TOKEN, URL)
        self.assertIsNone(client.rate_limit)
        client.list_teams(per_page=1)
        self.assertIsInstance(client.rate_limit, RateLimit)
        self.assertGreater(client.rate_limit.limit, 0)


class Errors(unittest.TestCase):
    def test_each_error_code_is_its_own_exception_with_code_message_status_and_limits(self):
        client = Client(TOKEN, URL)
        with self.assertRaises(ValidationError) as invalid:
            client.list_users(per_page=101)
        self.assertEqual((invalid.exception.code, invalid.exception.status), ("VALIDATION_ERROR", 400))
        self.assertIn("per_page", invalid.exception.message)
        self.assertIsInstance(invalid.exception.rate_limit, RateLimit)

        with self.assertRaises(NotFoundError) as missing:
            client.get_user("usr_nobody")
        self.assertEqual((missing.exception.code, missing.exception.status), ("NOT_FOUND", 404))

        with self.assertRaises(UnauthorizedError) as unknown:
            Client("plat_not_a_real_token", URL).list_users()
        self.assertEqual(unknown.exception.status, 401)

        with self.assertRaises(ForbiddenError) as forbidden:
            Client(os.environ["PLATFORM_API_COLLABORATOR_TOKEN"], URL).list_organization_audit_log("org_acme")
        self.assertEqual(forbidden.exception.status, 403)

        with self.assertRaises(UriTooLongError) as long_uri:
            client.list_users(fields="x" * 20_000)
        self.assertEqual(long_uri.exception.status, 414)

        # Every error is an APIError, and ids reach the path as one segment, whatever they hold.
        with self.assertRaises(APIError):
            client.get_user("../organizations/org_acme")

    def test_a_429_raises_or_is_waited_out(self):
        limited = os.environ["PLATFORM_API_LIMITED_URL"]
        client = Client(TOKEN, limited)
        with self.assertRaises(RateLimitedError) as refused:
            for _ in range(10):
                client.list_organizations(per_page=1)
        self.assertEqual(refused.exception.status, 429)
        self.assertGreater(refused.exception.retry_after, 0)
        self.assertEqual(refused.exception.rate_limit.remaining, 0)

        patient = Client(TOKEN, limited, wait_on_rate_limit=True, max_wait=90)
        started = time.monotonic()
        page = patient.list_organizations(per_page=1)
        self.assertEqual(page["status"], "success")
        self.assertGreaterEqual(time.monotonic() - started, refused.exception.retry_after - 2)


if __name__ == "__main__":
    unittest.main()
