package main

// allScenarios lists every scenario, grouped by topic, in run order.
func allScenarios() []scenario {
	var all []scenario
	for _, group := range [][]scenario{
		exchangeScenarios,
		queueScenarios,
		errorScenarios,
		accessScenarios,
		messageScenarios,
		ttlScenarios,
		maxlenScenarios,
		deadLetterScenarios,
		ackScenarios,
		confirmScenarios,
		consumerScenarios,
		quorumScenarios,
		policyScenarios,
	} {
		all = append(all, group...)
	}
	return all
}
