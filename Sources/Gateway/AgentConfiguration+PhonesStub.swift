extension AgentConfiguration {
    var phones: PhoneSettings { PhoneSettings() }
}
