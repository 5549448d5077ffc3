import { bitbucket } from './bitbucket';
import { claudeCode } from './claude_code';
import { copilot } from './copilot';
import { cursor } from './cursor';
import { deployments } from './deployments';
import { github } from './github';
import { gitlab } from './gitlab';
import { jira } from './jira';
import { linear } from './linear';
import { opsgenie } from './opsgenie';
import { pagerduty } from './pagerduty';
import { slack } from './slack';

/**
 * Every provider the service connects to, one line each, in the order people are shown them: the only list. The
 * ingest routes, the apps' and git apps' providers, the settings page's catalog and the docs' table come from it
 * (docs/architecture.md#adding-a-provider).
 */
export const INTEGRATIONS = [github, gitlab, bitbucket, jira, linear, slack, pagerduty, opsgenie, deployments, copilot, cursor, claudeCode] as const;
