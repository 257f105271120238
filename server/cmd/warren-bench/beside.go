package main

import "math"

// Issue 28: every figure is the default mode's (`make run`: a data
// directory), with the in-memory figure beside it only where it differs.
// With --beside-memory compare runs a second Warren in memory and the
// common and CPU tables gain its column, which names its median only
// where the two modes are apart by more than besideMemoryDiffers of the
// default mode's median; elsewhere it says "same".

// besideMemoryDiffers is how far apart, as a fraction of the default
// mode's median, the two modes must be for the in-memory figure to be
// shown: run-to-run spread on a 2-core machine is about this much.
const besideMemoryDiffers = 0.10

// memoryLabel is the in-memory Warren's name in results and tables.
const memoryLabel = "Warren in memory"

func besideHeader(memory *broker) string {
	if memory == nil {
		return ""
	}
	return " " + memory.label + " |"
}

func besideRule(memory *broker) string {
	if memory == nil {
		return ""
	}
	return "---|"
}

// besideSeries is metricSeries for the in-memory Warren, nil without one.
func besideSeries(runs []runResult, workload string, memory *broker) map[string][]float64 {
	if memory == nil {
		return nil
	}
	return metricSeries(runs, workload, memory.label)
}

// besideCell shows the in-memory series mv beside the default mode's wv:
// "—" when it did not run (a workload that needs a data directory),
// "same" when the medians are within besideMemoryDiffers, else mv as
// format shows a series.
func besideCell(mv, wv []float64, format func([]float64) string) string {
	if len(mv) == 0 {
		return "—"
	}
	if len(wv) > 0 {
		m, w := median(mv), median(wv)
		if math.Abs(m-w) <= besideMemoryDiffers*math.Abs(w) {
			return "same"
		}
	}
	return format(mv)
}
