package dev.sluice.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class AwsClientsKeepAliveTest {

    @Test
    void theJdkKeepsMoreIdleConnectionsPerHostThanTheItemWritersUnlessTheJvmWasToldOtherwise() {
        Properties unset = new Properties();
        AwsClients.keepConnectionsAlive(unset);
        assertThat(Integer.parseInt(unset.getProperty("http.maxConnections")))
                .as("at least the table sink's 8 item writers")
                .isGreaterThanOrEqualTo(8);

        Properties chosen = new Properties();
        chosen.setProperty("http.maxConnections", "3");
        AwsClients.keepConnectionsAlive(chosen);
        assertThat(chosen.getProperty("http.maxConnections")).isEqualTo("3");
    }
}
