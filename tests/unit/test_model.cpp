// Unit tests of metrics/model/ (to be written with the models).
