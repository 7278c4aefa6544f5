// Unit tests of metrics/adm/ (to be written with the feature).
