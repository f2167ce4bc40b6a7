#!/usr/bin/env node
// The local stack's IAM policy evaluator: @cloud-copilot/iam-simulate (AGPL-3.0-or-later) run as a
// separate dev-time process, never linked into Sluice's Java code or a deployed artifact.
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on stdout, in any order,
// matched by "id". Exits when stdin ends (the JVM that started it is gone).
//
// request:  {"id": 7, "principal": "arn:aws:iam::000000000000:role/r", "action": "dynamodb:GetItem",
//            "resource": "arn:aws:dynamodb:us-east-1:000000000000:table/t", "account": "000000000000",
//            "context": {"aws:PrincipalArn": "..."}, "identityPolicies": [{"name": "p", "policy": {...}}],
//            "permissionBoundaries": [...], "resourcePolicy": {...} | null}
// answer:   {"id": 7, "result": "Allowed" | "ImplicitlyDenied" | "ExplicitlyDenied" | "Error",
//            "reason": "no identity-based policy allows the dynamodb:GetItem action"}
'use strict';

const readline = require('readline');
const { runSimulation, getDenialReasons } = require('@cloud-copilot/iam-simulate');

// AWS's wording of the reason part of an AccessDenied message, by the kind of policy that denied
const IMPLICIT = {
  identity: (action) => `no identity-based policy allows the ${action} action`,
  resource: (action) => `no resource-based policy allows the ${action} action`,
  pb: (action) => `no permissions boundary allows the ${action} action`,
  scp: (action) => `no service control policy allows the ${action} action`,
  rcp: (action) => `no resource control policy allows the ${action} action`,
  vpce: (action) => `no VPC endpoint policy allows the ${action} action`,
};
const EXPLICIT = {
  identity: 'an identity-based policy',
  resource: 'a resource-based policy',
  pb: 'a permissions boundary',
  scp: 'a service control policy',
  rcp: 'a resource control policy',
  vpce: 'a VPC endpoint policy',
};

function reasonOf(action, analysis) {
  let denials = [];
  try {
    denials = analysis ? getDenialReasons(analysis) : [];
  } catch (e) {
    denials = [];
  }
  const explicit = denials.find((d) => d.denialType === 'Explicit');
  if (explicit) {
    const where = EXPLICIT[explicit.policyType] || explicit.policyType;
    const sid = explicit.statementId ? ` (statement ${explicit.statementId})` : '';
    return `with an explicit deny in ${where}${sid}`;
  }
  const implicit = denials[0];
  if (implicit && IMPLICIT[implicit.policyType]) {
    return IMPLICIT[implicit.policyType](action);
  }
  return `no policy allows the ${action} action`;
}

async function evaluate(request) {
  const simulation = {
    request: {
      principal: request.principal,
      action: request.action,
      resource: { resource: request.resource, accountId: request.account },
      contextVariables: request.context || {},
    },
    identityPolicies: request.identityPolicies || [],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    permissionBoundaryPolicies:
      request.permissionBoundaries && request.permissionBoundaries.length > 0
        ? request.permissionBoundaries
        : undefined,
    resourcePolicy: request.resourcePolicy || undefined,
  };
  const response = await runSimulation(simulation, {});
  if (response.resultType === 'error') {
    return { result: 'Error', reason: response.errors.message + ' ' + JSON.stringify(response.errors) };
  }
  const overall = response.overallResult;
  if (overall === 'Allowed') {
    return { result: 'Allowed' };
  }
  const analysis = response.resultType === 'single' ? response.result.analysis : response.results[0]?.analysis;
  return { result: overall, reason: reasonOf(request.action, analysis) };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let pending = 0;
let closed = false;
function done() {
  pending -= 1;
  if (closed && pending === 0) {
    process.exit(0);
  }
}
lines.on('line', (line) => {
  if (!line.trim()) {
    return;
  }
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    process.stdout.write(JSON.stringify({ id: null, result: 'Error', reason: 'not JSON: ' + e.message }) + '\n');
    return;
  }
  pending += 1;
  evaluate(request)
    .then((answer) => process.stdout.write(JSON.stringify({ id: request.id, ...answer }) + '\n'))
    .catch((e) =>
      process.stdout.write(JSON.stringify({ id: request.id, result: 'Error', reason: String(e && e.message) }) + '\n'),
    )
    .finally(done);
});
lines.on('close', () => {
  closed = true;
  if (pending === 0) {
    process.exit(0);
  }
});
process.stdout.write(JSON.stringify({ id: 0, result: 'Ready' }) + '\n');
