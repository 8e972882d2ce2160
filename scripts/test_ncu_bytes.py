#!/usr/bin/env python3
"""ncu_bytes.py on a profile whose counts are known: bench_step's lines, then ncu's CSV as kernel-study.sh writes it
(the ctest ncu_bytes_reader)."""
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ncu_bytes  # noqa: E402

BENCH = """Running bench_step
step/cuda:plain/bcc/64e6/sweep/min_time:0.200/repeats:5/manual_time       15.7 ms  16.4 ms  18 dofs=63.9999M
step/cuda:plain/bcc/64e6/sweep/min_time:0.200/repeats:5/manual_time_median 15.7 ms 16.4 ms  5 dofs=64M omega=0
==PROF== Disconnected from process 1972
"""
HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def row(kernel_id, section, name, unit, value):
    return (f'"{kernel_id}","1","bench_step","127.0.0.1","void sweep<12, 4, 5>(DeviceGrid, Tiling)","1","14",'
            f'"(256, 1, 1)","(36400, 1, 1)","0","9.0","{section}","{name}","{unit}","{value}"\n')


def profile(kernel_id="0", with_dram=True):
    rows = [row(kernel_id, "GPU Speed Of Light Throughput", "L2 Cache Throughput", "%", "95.99"),
            row(kernel_id, "GPU Speed Of Light Throughput", "DRAM Throughput", "%", "77.05"),
            row(kernel_id, "Command line profiler metrics", "lts__t_sectors_srcunit_tex.sum", "sector", "104,000,000"),
            row(kernel_id, "Command line profiler metrics", "lts__t_sectors.sum", "sector", "152,000,000")]
    if with_dram:
        rows.append(row(kernel_id, "Command line profiler metrics", "dram__bytes.sum", "byte", "1,632,000,000"))
    return BENCH + HEADER + "".join(rows)


class Bytes(unittest.TestCase):
    def write(self, text):
        path = Path(self.folder.name) / "ncu-bcc-sweep.csv"
        path.write_text(text)
        return path

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.folder.cleanup()

    def test_bytes_a_cell_from_the_sector_counts_and_the_median_dofs(self):
        line = ncu_bytes.summary(self.write(profile()))
        fields = line.split()
        self.assertEqual(fields[0], "ncu-bcc-sweep")
        self.assertEqual(fields[1:3], ["96.0%", "77.0%"])
        self.assertEqual(fields[3:6], ["52.0", "76.0", "25.5"])  # 104M · 32 B / 64M cells, 152M · 32, 1.632 GB

    def test_only_the_first_kernel_counts(self):
        text = profile() + "".join(profile("1").split(HEADER)[1:])
        self.assertEqual(ncu_bytes.summary(self.write(text)).split()[3], "52.0")

    def test_a_missing_metric_or_profile_is_named(self):
        with self.assertRaisesRegex(ValueError, "dram__bytes.sum"):
            ncu_bytes.summary(self.write(profile(with_dram=False)))
        with self.assertRaisesRegex(ValueError, "no ncu CSV"):
            ncu_bytes.summary(self.write(BENCH))
        self.assertEqual(ncu_bytes.main([str(self.write(BENCH))]), 1)

    def test_the_cells_are_the_median_lines_dofs(self):
        self.assertEqual(ncu_bytes.cells(BENCH), 64e6)
        with self.assertRaisesRegex(ValueError, "dofs"):
            ncu_bytes.cells("no benchmark here")


if __name__ == "__main__":
    unittest.main()
