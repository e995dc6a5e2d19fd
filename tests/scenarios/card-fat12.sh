# A card whose p1 is FAT12: each kind of FAT corruption is found through
# FAT's own code paths and raises fs_fault, untouched files stay intact.
STREAMS=1	# TAP streams (plans) the guest prints; run.sh checks the count
CARD=fat12
prepare() { fat_matrix_damage "$1"; }
guest() { fat_matrix fat12-corruptions mmcblk0p1; }
