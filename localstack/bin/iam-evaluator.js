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
const {
  runSimulation,
  runUnsafeSimulation,
  getDenialReasons,
  typeForContextKey,
  isConditionKeyArray,
} = require('@cloud-copilot/iam-simulate');
// iam-simulate's own policy library (its dependency, same version)
const { createValidatedPolicy } = require(
  require.resolve('@cloud-copilot/iam-policy', { paths: [require.resolve('@cloud-copilot/iam-simulate')] }),
);

// Context keys AWS sets that iam-simulate 0.1.173 drops as "ignored": it matches a variable condition
// key only in the `prefix/name` form (`aws:PrincipalTag/team`), so `kms:EncryptionContext:<key>` —
// the encryption context Kinesis, DynamoDB, S3, SQS, Secrets Manager and Logs send with each implied
// KMS call — would be evaluated as absent. For a request carrying one, the request is evaluated again
// by the same engine (runUnsafeSimulation: the same authorize() without the context-key filter),
// with the library's own normalization for every other key and the encryption context kept.
const KEPT_IGNORED = /^kms:encryptioncontext:/i;

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
  const kept = ignoredKeys(response).filter((key) => KEPT_IGNORED.test(key));
  if (kept.length > 0) {
    return evaluateWithKeptKeys(simulation, request, response, kept);
  }
  const overall = response.overallResult;
  if (overall === 'Allowed') {
    return { result: 'Allowed' };
  }
  const analysis = response.resultType === 'single' ? response.result.analysis : response.results[0]?.analysis;
  return { result: overall, reason: reasonOf(request.action, analysis) };
}

function ignoredKeys(response) {
  if (response.resultType === 'single') {
    return response.result.ignoredContextKeys || [];
  }
  return [...new Set((response.results || []).flatMap((r) => r.ignoredContextKeys || []))];
}

async function normalizedContext(context, ignored, kept) {
  const out = {};
  for (const [key, value] of Object.entries(context)) {
    if (kept.includes(key)) {
      // an encryption context pair is a single string
      out[key] = Array.isArray(value) ? value[0] : value;
    } else if (!ignored.includes(key)) {
      const type = await typeForContextKey(key.toLowerCase());
      if (isConditionKeyArray(type)) {
        out[key] = [value].flat();
      } else {
        out[key] = Array.isArray(value) ? value[0] : value;
      }
    }
  }
  return out;
}

async function evaluateWithKeptKeys(simulation, request, response, kept) {
  const contextVariables = await normalizedContext(request.context || {}, ignoredKeys(response), kept);
  // runUnsafeSimulation loads the resource policy without a name, which its analysis needs: hand it
  // one already named
  const resourcePolicy = simulation.resourcePolicy
    ? createValidatedPolicy(simulation.resourcePolicy, () => [], { name: 'ResourcePolicy' })
    : undefined;
  const withContext = { ...simulation, resourcePolicy, request: { ...simulation.request, contextVariables } };
  const result = runUnsafeSimulation(withContext, {});
  if (result === 'Allowed') {
    return { result: 'Allowed' };
  }
  if (result === 'ExplicitlyDenied') {
    // which kind of policy denies: the resource policy alone, or not
    const resourceOnly = runUnsafeSimulation(
      { ...withContext, identityPolicies: [], permissionBoundaryPolicies: undefined },
      {},
    );
    const where = resourceOnly === 'ExplicitlyDenied' ? EXPLICIT.resource : EXPLICIT.identity;
    return { result, reason: `with an explicit deny in ${where}` };
  }
  if (response.overallResult !== 'Allowed') {
    const analysis = response.resultType === 'single' ? response.result.analysis : response.results[0]?.analysis;
    return { result, reason: reasonOf(request.action, analysis) };
  }
  const policy = simulation.resourcePolicy ? 'resource' : 'identity';
  return { result, reason: IMPLICIT[policy](request.action) };
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
