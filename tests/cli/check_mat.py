"""Reads a MATLAB v4 result file of cosima with scipy.io.loadmat, as an OMPlot / DyMat user would,
and compares every variable with the CSV of the same run: same names, bitwise the same values.

  /usr/bin/python3 check_mat.py RESULTS.mat RESULTS.csv
"""
import csv
import sys

import numpy as np
import scipy.io


def main() -> int:
    mat = scipy.io.loadmat(sys.argv[1], chars_as_strings=False)
    aclass = ["".join(row).rstrip() for row in mat["Aclass"]]
    if aclass[0] != "Atrajectory" or aclass[3] != "binTrans":
        print(f"Aclass is {aclass}")
        return 1
    names = ["".join(column).rstrip() for column in mat["name"].T]  # binTrans: one name per column
    info = mat["dataInfo"].T
    with open(sys.argv[2], newline="") as file:
        rows = list(csv.reader(file))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    if names != header:
        print(f"names {names} differ from the CSV header {header}")
        return 1
    data = mat["data_2"]
    for j, name in enumerate(names):
        matrix, column = info[j][0], info[j][1]
        series = data[column - 1] if matrix in (0, 2) else None
        if series is None or not np.array_equal(series, values[:, j]):
            print(f"{name}: the MAT values differ from the CSV's")
            return 1
    if mat["data_1"][0][0] != values[0, 0] or mat["data_1"][0][1] != values[-1, 0]:
        print(f"data_1 {mat['data_1']} is not [start, stop]")
        return 1
    print(f"same: {len(names)} variables, {len(values)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
