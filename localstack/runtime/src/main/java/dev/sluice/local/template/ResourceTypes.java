package dev.sluice.local.template;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every CloudFormation resource type the local stack meets in a synthesized template is either
 * {@linkplain #PROVISIONED provisioned locally} or {@linkplain #AWS_ONLY AWS-only} with a reason. A
 * type in neither list fails provisioning ({@link #check}), so a resource added to the CDK stack is
 * never silently left out of local runs.
 */
public final class ResourceTypes {

    /** Types the local stack creates or runs (see {@link dev.sluice.local.provision.Provisioner}). */
    public static final Set<String> PROVISIONED = Set.of(
            "AWS::Kinesis::Stream",
            "AWS::DynamoDB::Table",
            "AWS::DynamoDB::GlobalTable",
            "AWS::S3::Bucket",
            "AWS::SQS::Queue",
            "AWS::SecretsManager::Secret",
            "AWS::Lambda::Function",
            "AWS::Lambda::Version",
            "AWS::Lambda::Alias",
            "AWS::Lambda::EventSourceMapping",
            "AWS::ECS::TaskDefinition",
            "AWS::ECS::Service");

    /** Types that exist only in AWS, with the reason the local stack does without them. */
    public static final Map<String, String> AWS_ONLY = awsOnly();

    private ResourceTypes() {}

    private static Map<String, String> awsOnly() {
        Map<String, String> types = new LinkedHashMap<>();
        String iam = "no IAM service locally: each role is a local principal with its own key, and its policies are"
                + " enforced on every call by the access gates (dev.sluice.local.iam; SLUICE_IAM=off turns that off)";
        for (String type : List.of("AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")) {
            types.put(type, iam);
        }
        String policies = "resource policies: enforced on every call by the access gates (dev.sluice.local.iam)";
        for (String type : List.of(
                "AWS::S3::BucketPolicy",
                "AWS::SQS::QueuePolicy",
                "AWS::Kinesis::ResourcePolicy",
                "AWS::SecretsManager::ResourcePolicy")) {
            types.put(type, policies);
        }
        types.put(
                "AWS::Lambda::Permission",
                "who may invoke a function: the local event-source mapping calls it in" + " the JVM");
        String kms = "no KMS emulator: the emulators store data unencrypted, but each key policy is enforced for the"
                + " KMS calls the services make on the caller's behalf (dev.sluice.local.iam); rotation is checked"
                + " by the CDK assertions";
        types.put("AWS::KMS::Key", kms);
        types.put("AWS::KMS::Alias", kms);
        String monitoring = "CloudWatch only: locally the functions' metrics go to localstack/.run/metrics and"
                + " logs to the console and localstack/.run/logs";
        for (String type : List.of("AWS::CloudWatch::Dashboard", "AWS::CloudWatch::Alarm", "AWS::Logs::LogGroup")) {
            types.put(type, monitoring);
        }
        String sns = "alarm notifications: there are no alarms locally";
        types.put("AWS::SNS::Topic", sns);
        types.put("AWS::SNS::TopicPolicy", sns);
        types.put(
                "AWS::ECS::Cluster",
                "Fargate capacity of the KCL services: local KCL workers run in the local JVM, from the"
                        + " task definition's environment");
        String network = "the network of the KCL Fargate tasks (VPC, subnets, NAT, flow logs): local workers"
                + " reach the emulators on the loopback interface";
        for (String type : List.of(
                "AWS::EC2::VPC",
                "AWS::EC2::Subnet",
                "AWS::EC2::RouteTable",
                "AWS::EC2::SubnetRouteTableAssociation",
                "AWS::EC2::Route",
                "AWS::EC2::EIP",
                "AWS::EC2::NatGateway",
                "AWS::EC2::InternetGateway",
                "AWS::EC2::VPCGatewayAttachment",
                "AWS::EC2::FlowLog",
                "AWS::EC2::SecurityGroup")) {
            types.put(type, network);
        }
        types.put("AWS::CDK::Metadata", "the CDK's version reporting: nothing to run");
        return java.util.Collections.unmodifiableMap(types);
    }

    /** Whether the local stack provisions this type. */
    public static boolean provisioned(String type) {
        return PROVISIONED.contains(type);
    }

    /**
     * Checks that every resource of the template is provisioned or AWS-only.
     *
     * @throws IllegalStateException naming the first resource (type and logical id) that is neither
     */
    public static void check(CloudFormationTemplate template) {
        for (CloudFormationTemplate.Resource resource : template.resources().values()) {
            if (!PROVISIONED.contains(resource.type()) && !AWS_ONLY.containsKey(resource.type())) {
                throw new IllegalStateException("template " + template.stackName() + ": resource "
                        + resource.logicalId() + " has type " + resource.type()
                        + ", which the local stack neither provisions nor lists as AWS-only; add it to"
                        + " dev.sluice.local.template.ResourceTypes (PROVISIONED with its provisioning,"
                        + " or AWS_ONLY with the reason)");
            }
        }
    }
}
