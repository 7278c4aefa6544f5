// Unit tests of metrics/motion/ (to be written with the feature).
