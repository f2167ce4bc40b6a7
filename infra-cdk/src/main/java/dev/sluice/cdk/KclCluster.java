package dev.sluice.cdk;

import java.util.List;
import software.amazon.awscdk.services.ec2.FlowLogDestination;
import software.amazon.awscdk.services.ec2.FlowLogOptions;
import software.amazon.awscdk.services.ec2.FlowLogTrafficType;
import software.amazon.awscdk.services.ec2.SubnetConfiguration;
import software.amazon.awscdk.services.ec2.SubnetType;
import software.amazon.awscdk.services.ec2.Vpc;
import software.amazon.awscdk.services.ecs.Cluster;
import software.amazon.awscdk.services.ecs.ContainerInsights;
import software.amazon.awscdk.services.logs.LogGroup;
import software.constructs.Construct;

/**
 * The network and ECS cluster the KCL stages of a pipeline share, created with the first {@code
 * consumer: kcl} stage ({@link #of(PipelineStack)}): a VPC over two availability zones with public
 * subnets (NAT gateway only) and private subnets with egress (the tasks), one NAT gateway, VPC flow
 * logs (all traffic) into a log group encrypted with the pipeline's logs key, and a Fargate cluster with
 * Container Insights.
 */
public final class KclCluster extends Construct {

    /** Construct id of the shared cluster under the stack. */
    static final String ID = "KclCluster";

    /** Availability zones of the VPC: the two KCL tasks of a stage can run in different ones. */
    public static final int AVAILABILITY_ZONES = 2;

    private final Vpc vpc;
    private final Cluster cluster;
    private final LogGroup flowLogs;

    private KclCluster(PipelineStack stack) {
        super(stack, ID);
        String pipeline = stack.getDefinition().pipeline();
        this.vpc = Vpc.Builder.create(this, "Vpc")
                .maxAzs(AVAILABILITY_ZONES)
                // one NAT gateway: the tasks reach Kinesis, DynamoDB, SQS and CloudWatch through it
                .natGateways(1)
                .subnetConfiguration(List.of(
                        SubnetConfiguration.builder()
                                .name("public")
                                .subnetType(SubnetType.PUBLIC)
                                .cidrMask(24)
                                .build(),
                        SubnetConfiguration.builder()
                                .name("workers")
                                .subnetType(SubnetType.PRIVATE_WITH_EGRESS)
                                .cidrMask(22)
                                .build()))
                .build();
        this.flowLogs = KclStage.encryptedLogGroup(this, "FlowLogs", "/sluice/" + pipeline + "/vpc-flow-logs");
        vpc.addFlowLog(
                "FlowLog",
                FlowLogOptions.builder()
                        .destination(FlowLogDestination.toCloudWatchLogs(flowLogs))
                        .trafficType(FlowLogTrafficType.ALL)
                        .build());
        this.cluster = Cluster.Builder.create(this, "Cluster")
                .vpc(vpc)
                .containerInsightsV2(ContainerInsights.ENABLED)
                .build();
    }

    /** The stack's shared KCL cluster, created on first use. */
    static KclCluster of(PipelineStack stack) {
        Object existing = stack.getNode().tryFindChild(ID);
        return existing instanceof KclCluster cluster ? cluster : new KclCluster(stack);
    }

    /** The VPC the KCL tasks run in (private subnets with egress). */
    public Vpc getVpc() {
        return vpc;
    }

    /** The ECS cluster of the KCL services. */
    public Cluster getCluster() {
        return cluster;
    }

    /** The VPC's flow log group. */
    public LogGroup getFlowLogs() {
        return flowLogs;
    }
}
